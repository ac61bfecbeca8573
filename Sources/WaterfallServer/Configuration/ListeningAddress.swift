#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What `--host` names, as far as who can reach the server goes.
public enum ListeningAddress {
    /// Whether `host` is this machine only: `localhost`, an address of 127.0.0.0/8, or `::1`
    /// (also written `[::1]`, in full, or as the IPv4-mapped `::ffff:127.x.y.z`). Anything else,
    /// `0.0.0.0` and `::` included, may be reached from other machines.
    public static func isLoopback(_ host: String) -> Bool {
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        if name.lowercased() == "localhost" { return true }
        var v4 = in_addr()
        if inet_pton(AF_INET, name, &v4) == 1 {
            return UInt32(bigEndian: v4.s_addr) >> 24 == 127
        }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, name, &v6) == 1 else { return false }
        let bytes = withUnsafeBytes(of: &v6) { Array($0) }
        if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
        // ::ffff:127.x.y.z, an IPv4 loopback address in IPv6 form.
        return bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF && bytes[12] == 127
    }
}

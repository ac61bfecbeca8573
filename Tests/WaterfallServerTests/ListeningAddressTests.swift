import Testing
import WaterfallServer

/// Which `--host` values are this machine only.
@Suite struct ListeningAddressTests {
    @Test(arguments: [
        "127.0.0.1", "127.1.2.3", "localhost", "LocalHost", "::1", "[::1]", "0:0:0:0:0:0:0:1", "::ffff:127.0.0.1",
    ])
    func loopback(_ host: String) {
        #expect(ListeningAddress.isLoopback(host))
    }

    @Test(arguments: [
        "0.0.0.0", "::", "10.0.0.1", "128.0.0.1", "192.0.2.1", "example.com", "localhost.example.com", "::2", "[::]",
        "",
    ])
    func reachableFromOtherMachines(_ host: String) {
        #expect(!ListeningAddress.isLoopback(host))
    }
}

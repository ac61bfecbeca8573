import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// A TCP proxy on 127.0.0.1 to a server, which can go silent: while ``isSilent`` it forwards
/// nothing either way and closes nothing, as a connection to a peer gone from the network looks
/// (no reset, no error: only no answer).
final class SilenceableProxy: Sendable {
    /// The proxy's own port.
    let port: Int
    private let silent = NIOLockedValueBox(false)
    private let server: any Channel
    private let group: MultiThreadedEventLoopGroup

    /// Starts forwarding connections to `host`:`target`, each made `delay` after it is accepted
    /// (as on a machine so busy that a new connection takes that long).
    init(to host: String, port target: Int, delayingConnectionsBy delay: TimeAmount = .zero) throws {
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let silent = self.silent
        server = try ServerBootstrap(group: group)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelInitializer { inbound in
                inbound.eventLoop.scheduleTask(in: delay) {}.futureResult.flatMap {
                    ClientBootstrap(group: inbound.eventLoop).connect(host: host, port: target)
                }.flatMapThrowing { outbound in
                    try inbound.pipeline.syncOperations.addHandler(Forward(to: outbound, silent: silent))
                    try outbound.pipeline.syncOperations.addHandler(Forward(to: inbound, silent: silent))
                }
            }
            .bind(host: "127.0.0.1", port: 0).wait()
        port = server.localAddress!.port!
        self.group = group
    }

    /// Whether the proxy forwards nothing now.
    var isSilent: Bool {
        get { silent.withLockedValue { $0 } }
        set { silent.withLockedValue { $0 = newValue } }
    }

    func stop() {
        try? server.close().wait()
        try? group.syncShutdownGracefully()
    }
}

/// Writes what one side reads to the other, unless the proxy is silent; closes the other side
/// when this one closes.
private final class Forward: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer
    private let peer: any Channel
    private let silent: NIOLockedValueBox<Bool>

    init(to peer: any Channel, silent: NIOLockedValueBox<Bool>) {
        self.peer = peer
        self.silent = silent
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !silent.withLockedValue({ $0 }) else { return }
        peer.writeAndFlush(Self.unwrapInboundIn(data), promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        peer.close(promise: nil)
    }
}

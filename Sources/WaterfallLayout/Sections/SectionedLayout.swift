/// The layout engine of a layout whose sections may differ (DESIGN section 14): each section is
/// laid out by its own kind and configuration (``SectionedConfiguration``), starting at the `y`
/// where the previous section ended, below its footer.
///
/// It holds one engine per variant: 0 for the layout's own configuration, `k + 1` for override
/// `k`. A caller asks ``variant(ofSection:)`` for each section of the feed and opens it with
/// ``openSection(_:variant:)``; from there on, the state (``SectionedState``) knows its
/// section's variant and kind, so appending, closing, saving and resuming need nothing else.
/// Between sections only `y` carries over, so each section's frames are bit for bit those its
/// own kind's engine gives for a section opened at that `y`.
public struct SectionedLayout: StreamingLayoutKind {
    /// The validated configuration this layout applies.
    public let configuration: SectionedConfiguration
    /// The engines, by variant.
    let engines: [SectionEngine]
    /// Each variant's section chrome, made once.
    let chromes: [SectionChrome]
    /// The variant of each overridden section, by catalog id.
    let variants: [String: Int]

    /// Creates a layout after validating `configuration`. O(overrides).
    /// - Throws: ``LayoutConfigurationError`` for the first value out of bounds, a section's
    ///   naming its JSON path.
    public init(_ configuration: SectionedConfiguration) throws(LayoutConfigurationError) {
        try configuration.validate()
        self.configuration = configuration
        var engines = [try SectionEngine(configuration.base)]
        var variants: [String: Int] = [:]
        for override in configuration.overrides {
            variants[override.section] = engines.count
            engines.append(try SectionEngine(override.configuration))
        }
        self.engines = engines
        self.variants = variants
        chromes = [configuration.base.chrome] + configuration.overrides.map(\.configuration.chrome)
    }

    public var hasSectionVariants: Bool { true }

    /// A variant of this layout, holding the state of that variant's kind (and shape).
    public func canResume(from state: SectionedState) -> Bool {
        guard engines.indices.contains(state.variant) else { return false }
        switch (engines[state.variant], state.inner) {
        case (.waterfall(let engine), .waterfall(let inner)): return engine.canResume(from: inner)
        case (.justified(let engine), .justified(let inner)): return engine.canResume(from: inner)
        default: return false
        }
    }

    public func variant(ofSection id: String) -> Int {
        variants[id] ?? 0
    }

    /// The state before the first section: the layout's own kind's, `y = 0`.
    public var initialState: SectionedState {
        engines[0].state(betweenSectionsAt: 0, variant: 0)
    }

    /// Opens a section with the layout's own configuration (variant 0).
    public func openSection(_ state: inout SectionedState) -> Frame? {
        openSection(&state, variant: 0)
    }

    /// Opens a section of `variant` at the state's `y`: the state becomes that variant's
    /// kind's, with only `y` carried over.
    public func openSection(_ state: inout SectionedState, variant: Int) -> Frame? {
        precondition(!state.isSectionOpen, "openSection called while a section is open")
        state = engines[variant].state(betweenSectionsAt: state.y, variant: variant)
        switch engines[variant] {
        case .waterfall(let engine): return state.withWaterfall { engine.openSection(&$0) }
        case .justified(let engine): return state.withJustified { engine.openSection(&$0) }
        }
    }

    public func headerFrame(sectionStartY: Double) -> Frame? {
        chromes[0].headerFrame(sectionStartY: sectionStartY)
    }

    public func headerFrame(sectionStartY: Double, variant: Int) -> Frame? {
        chromes[variant].headerFrame(sectionStartY: sectionStartY)
    }

    public func append(
        _ item: LayoutItem, _ state: inout SectionedState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void
    ) {
        switch engines[state.variant] {
        case .waterfall(let engine): state.withWaterfall { engine.append(item, &$0, emit) }
        case .justified(let engine): state.withJustified { engine.append(item, &$0, emit) }
        }
    }

    public func append(
        contentsOf items: UnsafeBufferPointer<LayoutItem>, into frames: UnsafeMutableBufferPointer<Frame>,
        _ state: inout SectionedState
    ) -> Int {
        switch engines[state.variant] {
        case .waterfall(let engine): state.withWaterfall { engine.append(contentsOf: items, into: frames, &$0) }
        case .justified(let engine): state.withJustified { engine.append(contentsOf: items, into: frames, &$0) }
        }
    }

    public func closeSection(_ state: inout SectionedState, _ emit: (_ indexInSection: Int, _ frame: Frame) -> Void)
        -> SectionEnd
    {
        switch engines[state.variant] {
        case .waterfall(let engine): state.withWaterfall { engine.closeSection(&$0, emit) }
        case .justified(let engine): state.withJustified { engine.closeSection(&$0, emit) }
        }
    }

    /// The height of the whole content: the layout's own `minimumContentHeight` applies.
    public func contentHeight(_ state: SectionedState) -> Double {
        precondition(!state.isSectionOpen, "contentHeight called while a section is open")
        return max(state.y, configuration.base.minimumContentHeight)
    }

    public func footer(below sectionEnd: Double) -> (frame: Frame?, end: Double) {
        chromes[0].footer(below: sectionEnd)
    }

    public func footer(below sectionEnd: Double, variant: Int) -> (frame: Frame?, end: Double) {
        chromes[variant].footer(below: sectionEnd)
    }

    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double) -> PinnedHeader {
        chromes[0].pinnedHeader(natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
    }

    public func pinnedHeader(natural: Frame, sectionEnd: Double, viewportY: Double, pinOffset: Double, variant: Int)
        -> PinnedHeader
    {
        chromes[variant].pinnedHeader(
            natural: natural, sectionEnd: sectionEnd, viewportY: viewportY, pinOffset: pinOffset)
    }

    /// Exact when every variant's is: a section moved down lays out as it would have there.
    public var shiftsExactly: Bool {
        engines.allSatisfy(\.shiftsExactly)
    }
}

/// The engine of one variant of a ``SectionedLayout``.
enum SectionEngine: Sendable {
    case waterfall(WaterfallLayout)
    case justified(JustifiedLayout)

    /// The engine of a configuration of one kind.
    init(_ configuration: AnyLayoutConfiguration) throws(LayoutConfigurationError) {
        switch configuration {
        case .waterfall(let configuration): self = .waterfall(try WaterfallLayout(configuration))
        case .justified(let configuration): self = .justified(try JustifiedLayout(configuration))
        case .sectioned: preconditionFailure("a section's configuration has no sections of its own")
        }
    }

    var shiftsExactly: Bool {
        switch self {
        case .waterfall(let engine): engine.shiftsExactly
        case .justified(let engine): engine.shiftsExactly
        }
    }

    /// This engine's state between sections at `y`, for a section of `variant`.
    func state(betweenSectionsAt y: Double, variant: Int) -> SectionedState {
        switch self {
        case .waterfall(let engine):
            SectionedState(variant: variant, inner: .waterfall(engine.state(betweenSectionsAt: y)))
        case .justified(let engine):
            SectionedState(variant: variant, inner: .justified(engine.state(betweenSectionsAt: y)))
        }
    }
}

/// The state of a ``SectionedLayout``: the state of the open (or last opened) section's kind,
/// and which variant that section is.
public struct SectionedState: ResumableLayoutState {
    /// The state of the section's kind.
    enum Inner: Hashable, Sendable {
        case waterfall(LayoutState)
        case justified(JustifiedState)
        /// Only while an engine works on the state taken out of it, so that its arrays stay
        /// uniquely referenced and are not copied on every image.
        case moving
    }

    /// The variant of the open (or last opened) section: 0 for the layout's own configuration,
    /// `k + 1` for override `k`.
    public private(set) var variant: Int
    var inner: Inner

    init(variant: Int, inner: Inner) {
        self.variant = variant
        self.inner = inner
    }

    /// Runs `body` on the waterfall state inside, taken out while it works (so that its
    /// arrays stay uniquely referenced and are not copied on every image).
    /// Precondition: the section is a waterfall's.
    mutating func withWaterfall<R>(_ body: (inout LayoutState) -> R) -> R {
        guard case .waterfall(var state) = inner else {
            preconditionFailure("a state of another kind than its section's engine")
        }
        inner = .moving
        defer { inner = .waterfall(state) }
        return body(&state)
    }

    /// ``withWaterfall(_:)`` for a justified section.
    mutating func withJustified<R>(_ body: (inout JustifiedState) -> R) -> R {
        guard case .justified(var state) = inner else {
            preconditionFailure("a state of another kind than its section's engine")
        }
        inner = .moving
        defer { inner = .justified(state) }
        return body(&state)
    }

    private func read<R>(_ waterfall: (LayoutState) -> R, _ justified: (JustifiedState) -> R) -> R {
        switch inner {
        case .waterfall(let state): waterfall(state)
        case .justified(let state): justified(state)
        case .moving: preconditionFailure("a sectioned state read while it is being updated")
        }
    }

    public var isSectionOpen: Bool { read(\.isSectionOpen, \.isSectionOpen) }
    public var y: Double { read(\.y, \.y) }
    public var sectionStartY: Double { read(\.sectionStartY, \.sectionStartY) }
    public var imagesInSection: Int { read(\.imagesInSection, \.imagesInSection) }
    public var pendingCount: Int { read(\.pendingCount, \.pendingCount) }

    public func shifted(by dy: Double) -> SectionedState {
        SectionedState(
            variant: variant, inner: read({ .waterfall($0.shifted(by: dy)) }, { .justified($0.shifted(by: dy)) }))
    }

    /// The byte that starts every serialized sectioned state (`S`).
    static let serializationTag: UInt8 = 0x53

    /// `S`, the variant (LEB128), then the section's kind's own serialized state, which starts
    /// with its kind's tag: so the state carries the section's kind.
    public func serialized() -> [UInt8] {
        var writer = StateByteWriter()
        writer.bytes.append(Self.serializationTag)
        writer.varint(UInt64(variant))
        writer.bytes += read({ $0.serialized() }, { $0.serialized() })
        return writer.bytes
    }

    /// Decodes a state written by ``serialized()``.
    /// - Throws: ``LayoutStateDecodingError`` when the bytes are not such a state.
    public init(serialized bytes: some Collection<UInt8>) throws(LayoutStateDecodingError) {
        var reader = StateByteReader(Array(bytes), subject: "sectioned layout state")
        let tag = try reader.byte(what: "tag")
        guard tag == Self.serializationTag else {
            throw LayoutStateDecodingError(
                offset: 0,
                message:
                    "these bytes are not a sectioned layout state (first byte \(tag), expected \(Self.serializationTag))."
            )
        }
        let variant = try reader.varint(what: "variant")
        guard variant < 1 << 20 else {
            throw LayoutStateDecodingError(
                offset: 1, message: "sectioned layout state variant \(variant) is out of range.")
        }
        let rest = reader.bytes[reader.offset...]
        if rest.first == JustifiedState.serializationTag {
            self.init(variant: Int(variant), inner: .justified(try JustifiedState(serialized: rest)))
        } else {
            self.init(variant: Int(variant), inner: .waterfall(try LayoutState(serialized: rest)))
        }
    }
}

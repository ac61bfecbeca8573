import WaterfallLayout

/// One section laid out from `origin` (the `y` between sections where it opened): what a hot
/// layout keeps of each section, with checkpoints *relative to the section*.
struct HotSectionPlan<State: ResumableLayoutState>: Sendable {
    /// The ``HotSection/version`` it was laid out from.
    let version: UInt64
    /// The engine's variant it was laid out with (``StreamingLayoutKind/variant(ofSection:)``).
    let variant: Int
    /// `y` where the section opened (before its header).
    let origin: Double
    /// `y` after it closed (after its footer): where the next section opens.
    let end: Double
    /// The bottom of its last image plus `sectionInset.bottom` (pinned headers stop there).
    let sectionEnd: Double
    /// States inside the section, at images `stride` or more apart where nothing is pending.
    let checkpoints: [(index: Int, state: State)]
    /// The band each chunk occupies: chunk `k` is the images from checkpoint `k - 1` (the
    /// section's start for 0) to checkpoint `k` (its end for the last), with the header in the
    /// first chunk and the footer in the last; `top > bottom` when it holds nothing to draw.
    let bands: [(top: Double, bottom: Double)]

    /// The memory the plan takes: itself, its checkpoints (each state's fixed part and what it
    /// holds in arrays, as its serialized size tells) and its bands; counted once, when it is
    /// laid out.
    let bytes: Int

    init(
        version: UInt64, variant: Int, origin: Double, end: Double, sectionEnd: Double,
        checkpoints: [(index: Int, state: State)], bands: [(top: Double, bottom: Double)]
    ) {
        self.version = version
        self.variant = variant
        self.origin = origin
        self.end = end
        self.sectionEnd = sectionEnd
        self.checkpoints = checkpoints
        self.bands = bands
        let state = MemoryLayout<(index: Int, state: State)>.stride + (checkpoints.first?.state.serialized().count ?? 0)
        bytes = MemoryLayout<Self>.stride + 64 + checkpoints.count * state + bands.count * 16
    }

    /// The index of the first image of chunk `k`, and of the image after its last.
    func chunk(_ k: Int, count: Int) -> Range<Int> {
        (k == 0 ? 0 : checkpoints[k - 1].index)..<(k < checkpoints.count ? checkpoints[k].index : count)
    }
}

/// A feed's layout for one configuration at one revision, as a reader uses it: each section's
/// plan and how far it moved since it was laid out (`shift`), and the content height.
struct HotPlacement<Kind: StreamingLayoutKind>: Sendable {
    /// The ``HotFeedGeometry/generation`` and revision it places.
    var generation: UInt64
    var revision: Int64
    var plans: [HotSectionPlan<Kind.State>]
    /// Add to a plan's `y`s to place it now (0 when it was laid out where it stands).
    var shifts: [Double]
    /// The engine's variant of each section, by ordinal (empty: all 0).
    var variants: [Int]
    var contentHeight: Double

    /// Whether it places `geometry` (the same load of the feed, at the same revision).
    func places(_ geometry: HotFeedGeometry) -> Bool {
        generation == geometry.generation && revision == geometry.revision
    }

    /// The engine's variant of section `ordinal`.
    func variant(of ordinal: Int) -> Int { variants.isEmpty ? 0 : variants[ordinal] }

    /// The `y` where section `ordinal` opens now.
    func origin(of ordinal: Int) -> Double { plans[ordinal].origin + shifts[ordinal] }

    /// The state to resume from before the image at `local` of section `ordinal`: the last
    /// checkpoint at or before it, moved to where the section stands now; `nil` when none
    /// (the section is laid out from its start).
    func checkpoint(section ordinal: Int, atOrBefore local: Int) -> (index: Int, state: Kind.State)? {
        let checkpoints = plans[ordinal].checkpoints
        var low = 0, high = checkpoints.count
        while low < high {
            let middle = (low + high) / 2
            if checkpoints[middle].index <= local { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let found = checkpoints[low - 1]
        let shift = shifts[ordinal]
        return (found.index, shift == 0 ? found.state : found.state.shifted(by: shift))
    }
}

/// A feed's layout for one configuration, kept in memory by a server and brought to each new
/// revision of the feed's ``HotFeedGeometry`` (DESIGN section 12): a section whose images
/// changed is laid out again from its start; the sections after it keep their plans and move
/// by the change of its height when the configuration ``StreamingLayoutKind/shiftsExactly``
/// (every `y` on a half-point grid, where moving is exact), else they are laid out again too.
/// So a move costs O(size of the sections it touches + number of sections), in memory.
///
/// Not thread-safe: the owner (``HotGeometry``) calls it under its feed's lock, once per
/// revision, and readers share the ``HotPlacement`` it returns.
final class HotLayout<Kind: StreamingLayoutKind>: HotLayoutMemory {
    let engine: Kind
    let stride: Int
    private var plans: [Int64: HotSectionPlan<Kind.State>] = [:]
    /// The ``HotFeedGeometry/generation`` ``plans`` were laid out from: a section's version
    /// means something only within one generation.
    private var plansGeneration: UInt64?
    private(set) var placement: HotPlacement<Kind>?

    init(engine: Kind, stride: Int) {
        self.engine = engine
        self.stride = stride
    }

    /// The memory its plans and its placement's own arrays take (the placement's plans share
    /// their checkpoints and bands with the kept ones), as of the last placement.
    private(set) var bytes = 0

    /// The placement at `geometry`'s revision, computed once for all readers of it;
    /// `variants` reads the engine's variant of each of its sections (only then).
    func placement(for geometry: HotFeedGeometry, variants: () throws -> [Int]) rethrows -> HotPlacement<Kind> {
        if let placement, placement.places(geometry) { return placement }
        let variants = try variants()
        if plansGeneration != geometry.generation {
            plans.removeAll()
            plansGeneration = geometry.generation
        }
        let exact = engine.shiftsExactly
        var y = engine.initialState.y
        var current: [HotSectionPlan<Kind.State>] = []
        var shifts: [Double] = []
        current.reserveCapacity(geometry.sections.count)
        shifts.reserveCapacity(geometry.sections.count)
        var live: [Int64: HotSectionPlan<Kind.State>] = [:]
        var bytes = geometry.sections.count * (MemoryLayout<HotSectionPlan<Kind.State>>.stride + 16 + 2 * 56)
        for (ordinal, section) in geometry.sections.enumerated() {
            let variant = variants.isEmpty ? 0 : variants[ordinal]
            var plan = plans[section.id]
            if let kept = plan, kept.version != section.version || kept.variant != variant || (!exact && kept.origin != y) {
                plan = nil
            }
            let laidOut = plan ?? layOut(section, variant: variant, at: y)
            let shift = y - laidOut.origin
            current.append(laidOut)
            shifts.append(shift)
            live[section.id] = laidOut
            bytes += laidOut.bytes
            y = laidOut.end + shift
        }
        plans = live
        self.bytes = bytes
        let placement = HotPlacement<Kind>(
            generation: geometry.generation, revision: geometry.revision, plans: current, shifts: shifts, variants: variants,
            contentHeight: engine.contentHeight(engine.state(betweenSectionsAt: y)))
        self.placement = placement
        return placement
    }

    /// Lays one section out from `y`, keeping checkpoints every `stride` images where nothing
    /// is pending (DESIGN section 5, in memory).
    private func layOut(_ section: HotSection, variant: Int, at y: Double) -> HotSectionPlan<Kind.State> {
        var state = engine.state(betweenSectionsAt: y)
        var band = (top: Double.infinity, bottom: -Double.infinity)
        func widen(_ frame: Frame) {
            band = (min(band.top, frame.minY), max(band.bottom, frame.maxY))
        }
        engine.openSection(&state, variant: variant).map(widen)
        var checkpoints: [(index: Int, state: Kind.State)] = []
        var bands: [(top: Double, bottom: Double)] = []
        var previous = 0
        for (index, item) in section.items.enumerated() {
            if index >= previous + stride && state.pendingCount == 0 {
                checkpoints.append((index, state))
                bands.append(band)
                band = (.infinity, -.infinity)
                previous = index
            }
            engine.append(item, &state) { _, frame in widen(frame) }
        }
        let end = engine.closeSection(&state) { _, frame in widen(frame) }
        end.footer.map(widen)
        bands.append(band)
        return HotSectionPlan(
            version: section.version, variant: variant, origin: y, end: state.y, sectionEnd: end.sectionEnd, checkpoints: checkpoints, bands: bands)
    }
}

/// A kept layout of any kind, as a feed's memory is counted.
protocol HotLayoutMemory: AnyObject {
    /// The bytes it holds.
    var bytes: Int { get }
}

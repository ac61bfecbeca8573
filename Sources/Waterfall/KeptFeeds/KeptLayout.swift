import WaterfallLayout

/// One section laid out from `origin` (the `y` between sections where it opened): what a
/// ``KeptLayout`` keeps of each section, with checkpoints *relative to the section*.
struct KeptSectionPlan<State: ResumableLayoutState>: Sendable {
    /// The ``KeptSection/version`` it was laid out from.
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

/// A feed's layout for one configuration, placed at one revision of the feed's
/// ``KeptGeometry`` (DESIGN section 12): each section's plan and how far it moved since it
/// was laid out (`shift`), and the content height. A server keeps one per feed and
/// configuration and places it at each new revision (``init(engine:stride:placing:variants:keeping:)``):
/// a section whose images changed is laid out again from its start; the sections after it keep
/// their plans and move by the change of its height when the configuration
/// ``StreamingLayoutKind/shiftsExactly`` (every `y` on a half-point grid, where moving is exact),
/// else they are laid out again too. So a move costs O(size of the sections it touches + number
/// of sections), in memory.
///
/// A value: the owner (``KeptFeeds``) places it under its feed's hold, once per revision, and
/// readers share the one placed at theirs.
struct KeptLayout<Kind: StreamingLayoutKind>: Sendable {
    /// Images between checkpoints (at least).
    let stride: Int
    /// The ``KeptGeometry/generation`` and revision it places: a section's plan is kept only
    /// within one generation, where its version means something.
    let generation: UInt64
    let revision: Int64
    /// Each section's id and plan, by ordinal.
    let sectionIDs: [Int64]
    let plans: [KeptSectionPlan<Kind.State>]
    /// Add to a plan's `y`s to place it now (0 when it was laid out where it stands).
    let shifts: [Double]
    /// The engine's variant of each section, by ordinal (empty: all 0).
    let variants: [Int]
    let contentHeight: Double
    /// The memory its plans and its own arrays take (a plan kept from an earlier placement
    /// shares its checkpoints and bands with it).
    let bytes: Int

    /// `engine`'s layout, with checkpoints every `stride` images, placed at `geometry`, whose
    /// sections have the engine's `variants`: each section's plan is taken from `kept` (this
    /// configuration's layout at an earlier revision) when it still holds, else laid out anew.
    init(engine: Kind, stride: Int, placing geometry: KeptGeometry, variants: [Int], keeping kept: KeptLayout?) {
        var kept =
            kept.flatMap { kept in
                kept.generation == geometry.generation
                    ? Dictionary(uniqueKeysWithValues: zip(kept.sectionIDs, kept.plans)) : nil
            } ?? [:]
        let exact = engine.shiftsExactly
        var y = engine.initialState.y
        var plans: [KeptSectionPlan<Kind.State>] = []
        var shifts: [Double] = []
        plans.reserveCapacity(geometry.sections.count)
        shifts.reserveCapacity(geometry.sections.count)
        var bytes = geometry.sections.count * (MemoryLayout<KeptSectionPlan<Kind.State>>.stride + 16 + 2 * 56)
        for (ordinal, section) in geometry.sections.enumerated() {
            let variant = variants.isEmpty ? 0 : variants[ordinal]
            var plan = kept.removeValue(forKey: section.id)
            if let held = plan,
                held.version != section.version || held.variant != variant || (!exact && held.origin != y)
            {
                plan = nil
            }
            let laidOut = plan ?? Self.layOut(section, engine: engine, stride: stride, variant: variant, at: y)
            let shift = y - laidOut.origin
            plans.append(laidOut)
            shifts.append(shift)
            bytes += laidOut.bytes
            y = laidOut.end + shift
        }
        self.stride = stride
        generation = geometry.generation
        revision = geometry.revision
        sectionIDs = geometry.sectionIDs
        self.plans = plans
        self.shifts = shifts
        self.variants = variants
        contentHeight = engine.contentHeight(engine.state(betweenSectionsAt: y))
        self.bytes = bytes
    }

    /// Whether it places `geometry` (the same load of the feed, at the same revision).
    func places(_ geometry: KeptGeometry) -> Bool {
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
        var low = 0
        var high = checkpoints.count
        while low < high {
            let middle = (low + high) / 2
            if checkpoints[middle].index <= local { low = middle + 1 } else { high = middle }
        }
        guard low > 0 else { return nil }
        let found = checkpoints[low - 1]
        let shift = shifts[ordinal]
        return (found.index, shift == 0 ? found.state : found.state.shifted(by: shift))
    }

    /// Lays one section out from `y`, keeping checkpoints every `stride` images where nothing
    /// is pending (DESIGN section 5, in memory).
    private static func layOut(
        _ section: KeptSection, engine: Kind, stride: Int, variant: Int, at y: Double
    ) -> KeptSectionPlan<Kind.State> {
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
        return KeptSectionPlan(
            version: section.version, variant: variant, origin: y, end: state.y, sectionEnd: end.sectionEnd,
            checkpoints: checkpoints, bands: bands)
    }
}

import Synchronization
import WaterfallLayout
import WaterfallStore
import WaterfallSync

/// Keeps what a page or a viewport shows.
struct CollectingSink: LayoutSink {
    var elements: [PlacedElement] = []
    /// How many of `elements` are images.
    var itemCount = 0
    let keep: (PlacedElement) -> Bool

    mutating func place(_ element: PlacedElement) {
        if keep(element) {
            elements.append(element)
            if element.kind == .item { itemCount += 1 }
        }
    }

    mutating func closed(_ section: SectionExtentRecord) {}
}

extension WaterfallService {
    /// Images `offset ..< offset + limit` of a feed with their frames, the headers of the
    /// sections whose first image is in the page and the footers of those whose last image is
    /// (DESIGN section 2). A server that holds the feed in memory lays the page out from its
    /// copy and reads only the page's rows (``answerFromHeldFeed(feed:layout:_:finish:)``, or
    /// inside the transaction); otherwise it reads one checkpoint and at most
    /// `stride + limit + 1` image rows when the cache is warm (for justified rows, also the
    /// rest of the last image's row), and completes the cache first (and stores it) when not.
    /// - Throws: ``WaterfallError``: `usage` for a bad slice or configuration, `invalidData` for
    ///   an unknown feed or layout.
    public func page(feed: String?, layout: LayoutSource, offset: Int, limit: Int) async throws(WaterfallError)
        -> LayoutPage
    {
        try Self.validateSlice(offset: offset, limit: limit)
        if let held = try await keptPage(feed: feed, layout: layout, offset: offset, limit: limit) {
            return held
        }
        return try await readLayoutAnswer(feed: feed, layout: layout, what: "page") { service, query, tx in
            try query.configuration.withEngine(
                PageWork(service: service, query: query, offset: offset, limit: limit, tx: tx))
        }
    }

    /// Reads an answer about a layout in one read transaction that resolves the feed and the
    /// layout, and stores what it computed for the layout cache. With a kept feed, `answer` may
    /// find the copy newer than its snapshot, or being brought to its revision: the answer is
    /// then read again in a new transaction, after the kept feed's task when there is one
    /// (awaited holding neither a thread nor a connection). The last of ``readsPerAnswer`` tries
    /// answers from the layout cache alone.
    /// - Parameter what: the answer's name, for the error when every try met a newer copy.
    func readLayoutAnswer<Answer: Sendable>(
        feed: String?, layout: LayoutSource, what: String,
        _ answer:
            @escaping @Sendable (WaterfallService, LayoutQuery, any CatalogTransaction) throws -> LayoutRead<Answer>
    ) async throws(WaterfallError) -> Answer {
        var keeping = keptFeeds != nil
        for attempt in 0..<Self.readsPerAnswer {
            var tried = self
            if attempt == Self.readsPerAnswer - 1 || !keeping { tried.keptFeeds = nil }
            let service = tried
            let read: LayoutRead<Answer>
            do {
                read = try await database.read { tx in
                    let feed = try resolveFeed(feed, tx)
                    return try answer(service, try resolveLayout(layout, feed: feed, tx), tx)
                }
            } catch {
                throw WaterfallError(error)
            }
            switch read {
            case .answered(let value, let update):
                await save(update)
                return value
            case .readAgain(let task, true):
                await task?.value
            case .readAgain(let task, false):
                // Someone else's work that does not end soon: the layout cache answers.
                if let task, await !task.ends(within: Self.keptWorkPatience) {
                    try Self.stopIfCancelled()
                    keeping = false
                }
            }
        }
        throw WaterfallError.database("the feed kept changing while its \(what) was read; try again.")
    }

    /// Throws when the reader is cancelled (a server shutting down): one that stopped waiting
    /// for work on a kept feed for that reason does not go on to the layout cache, which may
    /// be far behind (seconds of work for a million images), for an answer nobody awaits.
    static func stopIfCancelled() throws(WaterfallError) {
        if Task.isCancelled { throw .unavailable("the request was cancelled before its answer was ready.") }
    }

    /// How long a reader waits for work on a kept feed that another reader or a task does (a
    /// load, a follow, a layout placed) before it answers from the layout cache instead: the
    /// work goes on, for the readers after it; this one waits no longer than that for anyone.
    static let keptWorkPatience: Duration = .seconds(3)

    /// How many read transactions one answer takes at most: a reader that finds the kept feed
    /// behind its revision waits for its follow, then for its layout's placement, and reads
    /// again; only one that keeps losing the race to newer revisions gets to the last, which
    /// answers from the layout cache alone.
    static let readsPerAnswer = 5

    /// ``page(feed:layout:offset:limit:)`` for one kind of layout: reads from the checkpoint
    /// before `offset` until every image of the page has its frame (the end of the row of its
    /// last image, DESIGN section 8) and one image more (which closes the section of the last).
    fileprivate func pageOfKind(
        engine: some StreamingLayoutKind, _ query: LayoutQuery, offset: Int, limit: Int, _ tx: any CatalogTransaction
    ) throws -> (LayoutPage, CacheUpdate?) {
        try page(
            of: CachedLayout(tx: tx, query: query, engine: engine, stride: stride), query, offset: offset, limit: limit,
            tx)
    }

    /// ``pageOfKind(engine:_:offset:limit:_:)`` of a cached layout loaded already.
    func page<Kind: StreamingLayoutKind>(
        of cache: CachedLayout<Kind>, _ query: LayoutQuery, offset: Int, limit: Int, _ tx: any CatalogTransaction
    ) throws -> (LayoutPage, CacheUpdate?) {
        let feed = query.feed
        let start = try cache.checkpoint(atOrBelow: offset, tx)
        let from = start?.index ?? 0
        var runner = try LayoutRunner(
            engine: cache.engine, sections: cache.sections, variants: cache.variants, checkpoint: start)
        let range = offset..<(offset + limit)
        let expected = max(0, min(range.upperBound, cache.end.totalItems) - offset)
        var sink = CollectingSink { range.contains($0.owner) }
        var rows: [ImageRecord] = []
        var wanted = offset - from + limit + 1
        var nextKey = start?.key ?? Int64.min
        while true {
            let batch = try tx.images(feedID: feed.id, fromKey: nextKey, limit: wanted)
            for row in batch { try runner.place(row.geometry, into: &sink) }
            rows += batch
            if batch.count < wanted {
                _ = runner.finish(into: &sink)
                break
            }
            // A justified row still open holds frames of the page: read on to its end.
            if sink.itemCount >= expected { break }
            let lastKey = batch[batch.count - 1].key
            guard lastKey < Int64.max else {
                _ = runner.finish(into: &sink)
                break
            }
            nextKey = lastKey + 1
            wanted = max(64, limit)
        }
        let labels = try SectionLabels(sink.elements.lazy.map(\.sectionID), tx)
        let parts = assemble(
            sink.elements, rows: rows, firstIndex: from, labels: labels, scale: query.configuration.common.scale)
        let page = LayoutPage(
            feed: feed.name, revision: feed.revision, incarnation: feed.id, layout: query.name,
            contentHeight: cache.end.contentHeight,
            totalItems: cache.end.totalItems,
            nextOffset: offset + limit < cache.end.totalItems ? offset + limit : nil,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: query.configuration)
        return (page, cache.update)
    }

    /// Every header, image and footer whose frame meets the band `[y, y + height)`; with
    /// `pinOffset`, the header of every section with an element in the band, pinned at
    /// `min(max(y + pinOffset, naturalY), sectionEnd - headerHeight)` (DESIGN section 2).
    /// From a kept feed as ``page(feed:layout:offset:limit:)`` is; otherwise reads the
    /// checkpoints' bands and the image rows of the chunks that meet the band.
    public func viewport(
        feed: String?, layout: LayoutSource, y: Double, height: Double, pinOffset: Double? = nil
    ) async throws(WaterfallError) -> ViewportPage {
        try Self.validateBand(y: y, height: height, pinOffset: pinOffset)
        if let held = try await keptViewport(
            feed: feed, layout: layout, y: y, height: height, pinOffset: pinOffset)
        {
            return held
        }
        return try await readLayoutAnswer(feed: feed, layout: layout, what: "viewport") { service, query, tx in
            try query.configuration.withEngine(
                ViewportWork(
                    service: service, query: query, y: y, height: height, pinOffset: pinOffset, tx: tx))
        }
    }

    /// Checks a viewport's band and pin offset.
    static func validateBand(y: Double, height: Double, pinOffset: Double?) throws(WaterfallError) {
        guard y.isFinite, abs(y) <= 1e12 else {
            throw WaterfallError.invalidValue(.y, "must be a finite number of points, got \(y).")
        }
        guard height.isFinite, height > 0, height <= 1e12 else {
            throw WaterfallError.invalidValue(.height, "must be a number of points above 0, got \(height).")
        }
        if let pinOffset, !pinOffset.isFinite || abs(pinOffset) > 1e12 {
            throw WaterfallError.invalidValue(.pinOffset, "must be a finite number of points, got \(pinOffset).")
        }
    }

    /// ``viewport(feed:layout:y:height:pinOffset:)`` for one kind of layout: lays out the
    /// chunks whose bands meet the band, from the checkpoint that starts the first (every
    /// image of a chunk has its frame by the checkpoint that ends it).
    fileprivate func viewportOfKind(
        engine: some StreamingLayoutKind, _ query: LayoutQuery, y: Double, height: Double, pinOffset: Double?,
        _ tx: any CatalogTransaction
    ) throws -> (ViewportPage, CacheUpdate?) {
        let feed = query.feed
        let cache = try CachedLayout(tx: tx, query: query, engine: engine, stride: stride)
        let matched = try cache.chunks(tx).filter { $0.top < y + height && $0.bottom > y }
        var elements: [PlacedElement] = []
        var rows: [ImageRecord] = []
        var from = 0
        if let first = matched.first, let last = matched.last {
            let start = first.start == 0 ? nil : try cache.checkpoint(atOrBelow: first.start, tx)
            from = start?.index ?? 0
            var runner = try LayoutRunner(
                engine: cache.engine, sections: cache.sections, variants: cache.variants, checkpoint: start)
            var sink = CollectingSink { $0.frame.meetsBand(y: y, height: height) }
            rows = try tx.images(feedID: feed.id, fromKey: start?.key ?? Int64.min, limit: last.end - from)
            for row in rows { try runner.place(row.geometry, into: &sink) }
            if last.isTail { _ = runner.finish(into: &sink) }
            elements = sink.elements
        }
        let labels = try SectionLabels(elements.lazy.map(\.sectionID), tx)
        var parts = assemble(
            elements, rows: rows, firstIndex: from, labels: labels, scale: query.configuration.common.scale)
        if let pinOffset, query.configuration.hasHeaders {
            var visible: [Int64] = []
            var seen: Set<Int64> = []
            for element in elements where seen.insert(element.sectionID).inserted { visible.append(element.sectionID) }
            let extents = try cache.extents(of: visible, tx)
            parts.headers = visible.compactMap { id in
                let variant = cache.variant(of: id)
                guard let extent = extents[id],
                    let natural = cache.engine.headerFrame(sectionStartY: extent.startY, variant: variant)
                else { return nil }
                let pinned = cache.engine.pinnedHeader(
                    natural: natural, sectionEnd: extent.endY, viewportY: y, pinOffset: pinOffset, variant: variant)
                return PlacedSupplement(
                    section: labels.name(id), frame: pinned.frame, pinned: pinned.isPinned, title: labels.title(id))
            }
        }
        let answer = ViewportPage(
            feed: feed.name, revision: feed.revision, incarnation: feed.id, layout: query.name,
            contentHeight: cache.end.contentHeight,
            totalItems: cache.end.totalItems, y: y, height: height,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: query.configuration)
        return (answer, cache.update)
    }

    /// Turns placed elements into the output's items, headers and footers.
    /// Each image's `url` is its rendition for the layout's `scale` as the device pixel ratio.
    func assemble(
        _ elements: [PlacedElement], rows: [ImageRecord], firstIndex: Int, labels: SectionLabels, scale: Int
    ) -> (items: [PlacedImage], headers: [PlacedSupplement], footers: [PlacedSupplement]) {
        var items: [PlacedImage] = []
        var headers: [PlacedSupplement] = []
        var footers: [PlacedSupplement] = []
        for element in elements {
            let section = labels.name(element.sectionID)
            switch element.kind {
            case .item:
                let row = rows[element.owner - firstIndex]
                var item = PlacedImage(
                    index: element.owner, id: row.externalID, section: section, frame: element.frame, url: row.url,
                    takenAt: row.takenAt.map(TakenAt.string(milliseconds:)), title: row.title,
                    pixelWidth: Int(row.width), pixelHeight: Int(row.height),
                    placeholder: row.placeholder, color: row.color,
                    renditions: row.renditions.flatMap(Renditions.init(storedText:)))
                item.chooseRendition(dpr: Double(scale))
                items.append(item)
            case .header:
                headers.append(
                    PlacedSupplement(
                        section: section, frame: element.frame, pinned: false, title: labels.title(element.sectionID)))
            case .footer:
                footers.append(
                    PlacedSupplement(
                        section: section, frame: element.frame, pinned: nil, title: labels.title(element.sectionID)))
            }
        }
        return (items, headers, footers)
    }
}

extension ImageRecord {
    /// The layout-relevant part of the row.
    var geometry: ImageGeometry {
        ImageGeometry(key: key, sectionID: sectionID, width: width, height: height, isFullSpan: isFullSpan)
    }
}

/// ``WaterfallService/page(feed:layout:offset:limit:)`` with the engine of the layout's kind.
private struct PageWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let offset: Int
    let limit: Int
    let tx: any CatalogTransaction

    /// The page, from the layout cache.
    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> LayoutRead<LayoutPage> {
        let (page, update) = try service.pageOfKind(engine: engine, query, offset: offset, limit: limit, tx)
        return .answered(page, update)
    }
}

/// ``WaterfallService/viewport(feed:layout:y:height:pinOffset:)`` with the engine of the
/// layout's kind.
private struct ViewportWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let y: Double
    let height: Double
    let pinOffset: Double?
    let tx: any CatalogTransaction

    /// The viewport, from the layout cache.
    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> LayoutRead<ViewportPage> {
        let (viewport, update) = try service.viewportOfKind(
            engine: engine, query, y: y, height: height, pinOffset: pinOffset, tx)
        return .answered(viewport, update)
    }
}

/// What one read transaction made of an answer about a layout
/// (``WaterfallService/readLayoutAnswer(feed:layout:what:_:)``).
enum LayoutRead<Answer: Sendable>: Sendable {
    /// The answer, with what it computed for the layout cache.
    case answered(Answer, CacheUpdate?)
    /// The kept feed is newer than the transaction, or being brought to its revision by `task`:
    /// read again in a new transaction (after `task`: to its end when the reader started it
    /// (`itsOwn`), else for ``WaterfallService/keptWorkPatience`` at most).
    case readAgain(after: Task<Void, Never>?, itsOwn: Bool = false)

    /// The answer made into another.
    func map<T>(_ transform: (Answer, CacheUpdate?) throws -> (T, CacheUpdate?)) rethrows -> LayoutRead<T> {
        switch self {
        case .answered(let answer, let update):
            let (made, update) = try transform(answer, update)
            return .answered(made, update)
        case .readAgain(let task, let itsOwn): return .readAgain(after: task, itsOwn: itsOwn)
        }
    }
}

extension KeptRead where Value: Sendable {
    /// The transaction's answer from what the kept feed found, for a reader that does not lead
    /// (``KeptFeeds/placement(feed:engine:key:stride:database:leading:)``): its answer, a read
    /// again, or, when the feed is not kept, `otherwise`'s (from the layout cache).
    func answer(otherwise: () throws -> (Value, CacheUpdate?)) rethrows -> LayoutRead<Value> {
        switch self {
        case .ready(let value): return .answered(value, nil)
        case .ahead: return .readAgain(after: nil)
        case .wait(let task): return .readAgain(after: task)
        case .started(let task): return .readAgain(after: task, itsOwn: true)
        case .lead, .notKept:
            let (value, update) = try otherwise()
            return .answered(value, update)
        }
    }
}

extension Task where Success == Void, Failure == Never {
    /// Whether the task ends within `limit`, awaited without holding a thread; when it does not,
    /// or the caller is cancelled first (`false`), the caller goes on and the task runs to its
    /// end without it.
    func ends(within limit: Duration) async -> Bool {
        let waiting = Mutex((waiter: CheckedContinuation<Bool, Never>?.none, answer: Bool?.none))
        let answer = { @Sendable (ended: Bool) in
            let waiter = waiting.withLock { state -> CheckedContinuation<Bool, Never>? in
                guard state.answer == nil else { return nil }
                state.answer = ended
                defer { state.waiter = nil }
                return state.waiter
            }
            waiter?.resume(returning: ended)
        }
        let timer = Task<Void, Never> {
            try? await Task<Never, Never>.sleep(for: limit)
            answer(false)
        }
        Task<Void, Never> {
            await self.value
            answer(true)
            timer.cancel()
        }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (waiter: CheckedContinuation<Bool, Never>) in
                let answered = waiting.withLock { state -> Bool? in
                    if state.answer == nil { state.waiter = waiter }
                    return state.answer
                }
                if let answered { waiter.resume(returning: answered) }
            }
        } onCancel: {
            answer(false)
            timer.cancel()
        }
    }
}

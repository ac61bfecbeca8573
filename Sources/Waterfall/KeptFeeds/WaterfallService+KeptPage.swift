import WaterfallLayout
import WaterfallStore

extension WaterfallService {
    /// The same service, keeping feeds' geometry and layouts in `keptFeeds` (a server: DESIGN
    /// section 12). Pages then read only their own rows, whatever was written before them.
    ///
    /// `bringingWritesAlong`: how long each write awaits the kept feed brought to its revision
    /// before it returns (``keepAlong(_:for:)``; the server's is ``keptAlongPatience``), or `nil`
    /// for none: for a server whose readers take the catalog for changed by its own
    /// write only when the write returns (its watcher passes over its own commits, as on
    /// PostgreSQL). Where readers see a commit at once (SQLite), the first of them brings the
    /// kept feed along in its own transaction, and a writer doing it too only races it: in
    /// alternating rounds on SQLite it took the deep page under a writer from 0.90–0.94 of
    /// `/healthz` to 0.66–0.83, and doubled a move's latency.
    ///
    /// `records`: the records pages read beside their rows, kept for the catalog's version
    /// (``KeptRecords``), for a server whose watcher vouches for one.
    public func keepingFeeds(
        _ keptFeeds: KeptFeeds, bringingWritesAlong: Duration? = nil, records: KeptRecords? = nil
    ) -> WaterfallService {
        var service = self
        service.keptFeeds = keptFeeds
        service.bringsWritesAlong = bringingWritesAlong
        service.keptRecords = records
        return service
    }

    /// The kept feed's geometry and `engine`'s layout of `query` at its feed's revision, taken
    /// as `reader` takes them, reading nothing.
    func keptPlacement<Kind: StreamingLayoutKind>(
        engine: Kind, _ query: LayoutQuery, as reader: KeptReader = .placing()
    ) -> KeptRead<(KeptGeometry, KeptLayout<Kind>)> {
        guard let keptFeeds else { return .notKept }
        switch reader {
        case .placing(let leading, let awaitingLoad):
            return keptFeeds.placement(
                feed: query.feed, engine: engine, key: query.key, stride: stride,
                database: database, leading: leading, awaitingLoad: awaitingLoad)
        case .whenReady:
            return keptFeeds.ready(feed: query.feed, engine: engine, key: query.key, stride: stride)
                .map { .ready($0) } ?? .notKept
        }
    }

    /// The answer to `question` laid out from the kept feed at `query`'s revision, taken as
    /// `reader` takes it, reading nothing.
    func keptLaidOut<Kind: StreamingLayoutKind>(
        _ question: KeptFeedAnswer.Question, engine: Kind, _ query: LayoutQuery, as reader: KeptReader = .placing()
    ) throws -> KeptRead<KeptFeedAnswer> {
        try keptPlacement(engine: engine, query, as: reader).map { geometry, layout in
            try KeptFeedAnswer(
                question, engine: engine, geometry: geometry, layout: layout, configuration: query.configuration)
        }
    }

    /// ``page(feed:layout:offset:limit:)``'s first way (of a valid slice): from the kept feed
    /// (``keptRowsAnswer(feed:layout:_:_:)``), or `nil`.
    func keptPage(feed: String?, layout: LayoutSource, offset: Int, limit: Int) async throws(WaterfallError)
        -> LayoutPage?
    {
        guard (try? Self.validateSlice(offset: offset, limit: limit)) != nil else { return nil }
        return try await keptRowsAnswer(feed: feed, layout: layout, .page(offset: offset, limit: limit)) {
            service, laidOut, rows, labels, query in
            service.page(laidOut, offset: offset, limit: limit, rows: rows, labels: labels, query)
        }
    }

    /// ``viewport(feed:layout:y:height:pinOffset:)``'s first way (of a valid band), as
    /// ``keptPage(feed:layout:offset:limit:)`` is the page's: finds the chunks of the sections
    /// whose bands meet the band, lays out from the checkpoint that starts the first to the end
    /// of the last (closing its section when it is the section's last), and reads the rows of
    /// the images that meet it.
    func keptViewport(
        feed: String?, layout: LayoutSource, y: Double, height: Double, pinOffset: Double?
    ) async throws(WaterfallError) -> ViewportPage? {
        guard (try? Self.validateBand(y: y, height: height, pinOffset: pinOffset)) != nil else { return nil }
        let question = KeptFeedAnswer.Question.viewport(y: y, height: height, pinOffset: pinOffset)
        return try await keptRowsAnswer(feed: feed, layout: layout, question) { service, laidOut, rows, labels, query in
            service.viewportPage(laidOut, y: y, height: height, rows: rows, labels: labels, query)
        }
    }

    /// ``keptAnswer(feed:layout:_:finish:)`` of an answer that shows rows (a page, a viewport),
    /// first without a transaction: from the feed and layout as ``KeptRecords`` kept them for
    /// the catalog's version, the answer laid out from the kept feed when it is ready at their
    /// revision, the sections' labels kept too, and the rows read in one statement that holds
    /// only while the feed is at that revision (``answerFromKeptRecords(feed:layout:_:at:_:)``).
    /// Anything else (nothing kept at this version, the copy or layout not ready, the feed
    /// moved on) reads in a transaction as before, and keeps what it read for the readers after
    /// it. A view's reads are not kept: its membership is a feed of its own.
    private func keptRowsAnswer<Answer: Sendable>(
        feed name: String?, layout: LayoutSource, _ question: KeptFeedAnswer.Question,
        _ assemble:
            @escaping @Sendable (WaterfallService, KeptFeedAnswer, [ImageRecord], SectionLabels, LayoutQuery) -> Answer
    ) async throws(WaterfallError) -> Answer? {
        let version = view == nil ? keptRecords?.version() : nil
        if let name, let version,
            let answer = try await answerFromKeptRecords(feed: name, layout: layout, question, at: version, assemble)
        {
            return answer
        }
        return try await keptAnswer(feed: name, layout: layout, question) { service, reads, laidOut, query in
            guard let (rows, sections) = try await service.rowsAndSections(of: laidOut, feed: query.feed, reads) else {
                return nil
            }
            if let name, let version {
                service.keptRecords?.keep(query, feed: name, layout: layout, sections: sections, readAt: version)
            }
            return assemble(service, laidOut, rows, SectionLabels(sections), query)
        }
    }

    /// The answer to `question` from the records kept at `version` and the kept feed, its rows
    /// read in one statement while the feed is at the kept record's revision; `nil` when any
    /// of it is not there (the caller reads in a transaction, which also words any error).
    private func answerFromKeptRecords<Answer: Sendable>(
        feed name: String, layout: LayoutSource, _ question: KeptFeedAnswer.Question, at version: KeptRecords.Version,
        _ assemble: (WaterfallService, KeptFeedAnswer, [ImageRecord], SectionLabels, LayoutQuery) -> Answer
    ) async throws(WaterfallError) -> Answer? {
        guard let records = keptRecords, let query = records.query(feed: name, layout: layout, at: version),
            (try? checkExpectedRevision(of: query.feed, named: name)) != nil,
            case .ready(let laidOut)? = try? query.configuration.withEngine(
                KeptAnswerWork(service: self, query: query, question: question, reader: .whenReady)),
            let firstKey = laidOut.firstKey,
            let sections = records.sections(laidOut.sectionIDs, revision: query.feed.revision, at: version)
        else { return nil }
        let rows: [ImageRecord]
        do {
            rows = try await database.images(
                feedID: query.feed.id, fromKey: firstKey, limit: laidOut.rows.count, atRevision: query.feed.revision)
        } catch {
            throw WaterfallError(error)
        }
        // None when the feed has moved on since the records were read (another server's commit
        // not heard yet): the transaction reads the new revision.
        guard laidOut.agrees(with: rows) else { return nil }
        records.answered()
        return assemble(self, laidOut, rows, SectionLabels(sections), query)
    }

    /// ``sectionIndex(feed:layout:)``'s first way, as ``keptPage(feed:layout:offset:limit:)``
    /// is the page's: each section's plan gives where it begins and ends, the copy gives its
    /// image count; only the sections and their dates are read. O(sections), no image row.
    func keptSectionIndex(feed: String?, layout: LayoutSource) async throws(WaterfallError) -> SectionIndex? {
        try await keptAnswer(feed: feed, layout: layout, .sectionIndex) { service, reads, laidOut, query in
            let records = try await reads.sections(feedID: query.feed.id)
            return service.sectionIndex(laidOut, records: records, query)?
                .dated(records: records, ranges: try await reads.takenAtRanges(sectionIDs: records.map(\.id)))
        }
    }

    /// The one way of ``page(feed:layout:offset:limit:)``, ``viewport(feed:layout:y:height:pinOffset:)``
    /// and ``sectionIndex(feed:layout:)`` from a kept feed, on both engines: in one read
    /// transaction whose statements are awaited (``CatalogStore/readAwaitingStatements(_:)``:
    /// on PostgreSQL without a thread, on SQLite on the reader connection's), the feed (or the
    /// view's membership), the named layout, and what `finish` reads to complete the answer
    /// (its rows and its sections' labels). The answer to `question` is laid out from the copy,
    /// found reading nothing; a copy or layout not at the feed's revision yet is brought there
    /// by the kept feed's task, awaited outside the transaction, and the answer is read again in
    /// a new one (``KeptFeeds/placement(feed:engine:key:stride:database:)``), at most
    /// ``readsPerAnswer`` times.
    ///
    /// `nil` when it cannot answer so, and the answer's function goes on with a transaction
    /// over the layout cache (``readLayoutAnswer(feed:layout:what:_:)``), which does everything
    /// this leaves out: no kept feeds (a command), or a command's one connection; no feed
    /// named; a feed not kept (over the budget, or being loaded: by another reader, or by this
    /// one when the feed is larger than a load its starter awaits); a copy that
    /// disagrees with the catalog (dropped); an answer that would be an error, which that way
    /// words.
    private func keptAnswer<Answer: Sendable>(
        feed name: String?, layout: LayoutSource, _ question: KeptFeedAnswer.Question,
        finish:
            @escaping @Sendable (WaterfallService, any CatalogPageReads, KeptFeedAnswer, LayoutQuery) async throws ->
            Answer?
    ) async throws(WaterfallError) -> Answer? {
        guard let keptFeeds, let name else { return nil }
        let service = self
        do {
            for _ in 0..<Self.readsPerAnswer {
                let read = try await database.readAwaitingStatements { reads -> LayoutRead<Answer>? in
                    guard let feed = try await service.keptFeed(named: name, reads) else { return nil }
                    var record: NamedLayoutRecord?
                    if case .named(let layoutName) = layout {
                        record = try await reads.layout(feedID: feed.layoutFeedID, name: layoutName)
                    }
                    guard let query = try? layout.resolved(feed: feed, record: record) else { return nil }
                    let work = KeptAnswerWork(
                        service: service, query: query, question: question, reader: .placing(leading: true))
                    // A follow, then a layout placed, led in this transaction at most.
                    for _ in 0..<3 {
                        switch try query.configuration.withEngine(work) {
                        case .ready(let laidOut):
                            return try await finish(service, reads, laidOut, query).map { .answered($0, nil) }
                        case .ahead: return .readAgain(after: nil)
                        case .wait(let task): return .readAgain(after: task)
                        case .started(let task): return .readAgain(after: task, itsOwn: true)
                        case .lead(let lead):
                            if let load = await keptFeeds.lead(lead, reading: reads) {
                                return .readAgain(after: load, itsOwn: true)
                            }
                        case .notKept: return nil
                        }
                    }
                    return .readAgain(after: nil)
                }
                switch read {
                case .answered(let answer, _)?: return answer
                case .readAgain(let task, true)?:
                    await task?.value
                case .readAgain(let task, false)?:
                    // Someone else's work that does not end soon: the layout cache answers.
                    if let task, await !task.ends(within: Self.keptWorkPatience) {
                        try Self.stopIfCancelled()
                        return nil
                    }
                case nil: return nil
                }
            }
            return nil
        } catch {
            throw WaterfallError(error)
        }
    }

    /// The feed `name` names, or the membership of the service's view of it (DESIGN section
    /// 20), as ``resolveFeed(_:_:)`` finds it; `nil` where that throws (it words the error).
    private func keptFeed(named name: String, _ reads: any CatalogPageReads) async throws -> FeedRecord? {
        guard var feed = try await reads.feed(named: name) else { return nil }
        if let view {
            guard let record = try await reads.view(feedID: feed.id, name: view),
                let membership = try await reads.feed(id: record.membershipID)
            else { return nil }
            feed = membership.asView(view, of: feed)
        }
        return (try? checkExpectedRevision(of: feed, named: name)) != nil ? feed : nil
    }

    /// The rows of `laidOut` and its sections' records (their labels), each statement awaited;
    /// `nil` when the rows are not what the copy holds (the copy is then dropped).
    private func rowsAndSections(
        of laidOut: KeptFeedAnswer, feed: FeedRecord, _ reads: any CatalogPageReads
    ) async throws -> ([ImageRecord], [SectionRecord])? {
        var rows: [ImageRecord] = []
        if let key = laidOut.firstKey {
            rows = try await reads.images(feedID: feed.id, fromKey: key, limit: laidOut.rows.count)
        }
        guard laidOut.agrees(with: rows) else {
            keptFeeds?.forget(feedID: feed.id)
            return nil
        }
        return (rows, try await reads.sections(ids: laidOut.sectionIDs))
    }

    /// The page of `limit` images from `offset`, laid out as `laidOut`, with its rows and its
    /// sections' labels.
    private func page(
        _ laidOut: KeptFeedAnswer, offset: Int, limit: Int, rows: [ImageRecord], labels: SectionLabels,
        _ query: LayoutQuery
    ) -> LayoutPage {
        let parts = assemble(
            laidOut.elements, rows: rows, firstIndex: offset, labels: labels, scale: query.configuration.common.scale)
        let total = laidOut.geometry.count
        return LayoutPage(
            feed: query.feed.name, revision: query.feed.revision, incarnation: query.feed.id, layout: query.name,
            contentHeight: laidOut.contentHeight,
            totalItems: total, nextOffset: offset + limit < total ? offset + limit : nil,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: query.configuration)
    }
}

extension WaterfallService {
    /// The viewport of the band `[y, y + height)`, laid out as `laidOut`, with its rows and its
    /// sections' labels.
    fileprivate func viewportPage(
        _ laidOut: KeptFeedAnswer, y: Double, height: Double, rows: [ImageRecord], labels: SectionLabels,
        _ query: LayoutQuery
    ) -> ViewportPage {
        var parts = assemble(
            laidOut.elements, rows: rows, firstIndex: laidOut.rows.lowerBound, labels: labels,
            scale: query.configuration.common.scale)
        if let pinned = laidOut.pinnedHeaders {
            parts.headers = pinned.map { header in
                PlacedSupplement(
                    section: labels.name(header.sectionID), frame: header.frame, pinned: header.isPinned,
                    title: labels.title(header.sectionID))
            }
        }
        return ViewportPage(
            feed: query.feed.name, revision: query.feed.revision, incarnation: query.feed.id, layout: query.name,
            contentHeight: laidOut.contentHeight,
            totalItems: laidOut.geometry.count, y: y, height: height,
            items: parts.items, headers: parts.headers, footers: parts.footers, configuration: query.configuration)
    }
}

/// How a reader takes the kept feed's geometry and a layout of it
/// (``WaterfallService/keptPlacement(engine:_:as:)``).
enum KeptReader: Sendable {
    /// Placed at the reader's revision, the copy or the layout brought there when they are not
    /// (``KeptFeeds/placement(feed:engine:key:stride:database:leading:awaitingLoad:)``):
    /// `leading`, the reader may lead that work in its own transaction (its statements
    /// awaited); `awaitingLoad`, it awaits a load of any size.
    case placing(leading: Bool = false, awaitingLoad: Bool = false)
    /// Only when both are at the revision already, starting nothing
    /// (``KeptFeeds/ready(feed:engine:key:stride:)``): a reader outside a transaction, whose
    /// feed came from ``KeptRecords``.
    case whenReady
}

/// The answer to a question laid out from the kept feed, taken as `reader` takes it, with the
/// engine of the layout's kind.
private struct KeptAnswerWork: EngineWork {
    let service: WaterfallService
    let query: LayoutQuery
    let question: KeptFeedAnswer.Question
    let reader: KeptReader

    func run<Kind: StreamingLayoutKind>(_ engine: Kind) throws -> KeptRead<KeptFeedAnswer> {
        try service.keptLaidOut(question, engine: engine, query, as: reader)
    }
}

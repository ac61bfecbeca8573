import Waterfall

extension WaterfallError {
    /// The sentence the command line prints: request values named by their flags, with a hint
    /// of the command that helps where one does.
    var commandLineMessage: String {
        let sentence = sentence(naming: \.flag)
        let clause = sentence.dropLast()  // the same sentence without its period, to go on
        return switch self {
        case .unknownFeed: "\(clause); `waterfall feeds` lists the feeds of this database."
        case .noFeeds: "\(clause); import one with `waterfall import FILE`."
        case .feedNotChosen: "\(clause); choose one with --feed NAME."
        case .unknownLayout: "\(clause); `waterfall layout list` shows the saved layouts."
        case .unknownView: "\(clause); `waterfall view list` shows the feed's views."
        case .conflictingValues(.resetOrder, .appendMode):
            "--reset-order adopts the whole file's order and cannot be combined with --append."
        case .conflictingValues(.page, _), .conflictingValues(.pageSize, _):
            "give either --page N [--page-size P] or --offset O --limit L, not both."
        case .backupTargetExists(let path): "\(path) exists already; give --force to replace it."
        case .feedNameMissing: "a feed read from standard input needs a name: give --feed NAME or a \"feed\" field."
        default: sentence
        }
    }

    /// The documented exit status (DESIGN section 6): 64 usage, 65 bad data, 66 unreadable
    /// input, 73 the database cannot be created, 74 it cannot be opened, read or written, 1 other.
    var exitStatus: Int32 {
        switch self {
        case .invalidValue, .conflictingValues, .feedNotChosen, .feedNameMissing, .invalidConfiguration,
            .backupTargetExists,
            .backupNeedsPgDump:
            64
        case .unknownFeed, .noFeeds, .unknownLayout, .unknownView, .unknownImage, .nothingTakenBy, .moveOntoItself,
            .moveAcrossDateSections, .indexOutsideSection, .invalidData,
            .revisionMismatch, .changesPruned, .cursorExpired, .cursorOfRemovedFeed, .feedRemadeSinceRead, .unknownKey,
            .unknownShare, .tooManyChangesToFollow,
            .keyExists:
            65
        case .fileUnreadable: 66
        case .cannotCreate, .mirrorIsReadOnly: 73
        case .database, .busy, .unavailable, .diskFull: 74
        case .other: 1
        }
    }
}

extension WaterfallError.Parameter {
    /// How the command line names the value: its flag, or what it is when no one flag gives it
    /// (a feed's name may come from the file).
    var flag: String {
        switch self {
        case .feedName: "the feed name"
        case .layoutName: "the layout name"
        case .keyName: "the key name"
        case .page: "--page"
        case .pageSize: "--page-size"
        case .offset: "--offset"
        case .limit: "--limit"
        case .since: "--since"
        case .y: "--y"
        case .height: "--height"
        case .pinOffset: "--pin-offset"
        case .x: "--x"
        case .viewportWidth: "--viewport-width"
        case .date: "--date"
        case .anchorY: "--anchor-y"
        case .cursor: "--cursor"
        case .dpr: "--dpr"
        case .tag: "--tag"
        case .viewName: "the view name"
        case .viewRule: "the view's rule"
        case .resetOrder: "--reset-order"
        case .appendMode: "--append"
        case .sectionBy: "--section-by"
        case .timeZone: "--time-zone"
        case .expires: "--expires"
        case .keepChanges: "--keep-changes"
        case .backupTarget: "--to"
        case .mirrorSource: "--from"
        }
    }
}

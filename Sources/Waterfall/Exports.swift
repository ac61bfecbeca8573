// The service's API speaks in the engine's and the sync layer's value types (configurations,
// frames, move targets), so a front end that imports `Waterfall` sees them too.
@_exported import WaterfallLayout

@_exported import enum WaterfallStore.BlockingThreads
@_exported import enum WaterfallStore.ChangeKind
@_exported import protocol WaterfallStore.ChangeWatcher
@_exported import enum WaterfallStore.CommitTag
@_exported import struct WaterfallStore.FeedVersion
@_exported import enum WaterfallSync.FeedFormat
@_exported import enum WaterfallSync.ImageTags
@_exported import enum WaterfallSync.MoveTarget
@_exported import struct WaterfallSync.Rendition
@_exported import enum WaterfallSync.Renditions
@_exported import enum WaterfallSync.SectionBy
@_exported import struct WaterfallSync.ViewRule
@_exported import struct WaterfallSync.ViewRuleError

import Foundation
import OpenAPIRuntime

/// Views and share links (DESIGN section 20) made short: a view's images and pages read as a
/// feed's are, a view saved from its rule, links made, listed and removed, and a link's pages
/// read without a key, optionally pinned to a revision a cache may keep for good.
extension WaterfallAPI {
    // MARK: Views

    /// A feed's saved views, each with its rule and counts (`GET /v1/feeds/{feed}/views`).
    public func views(feed: String) async throws -> Versioned<Components.Schemas.ViewList> {
        try await call {
            let ok = try await $0.listViews(path: .init(feed: feed)).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// One view, its rule and counts (`GET /v1/feeds/{feed}/views/{view}`).
    /// - Throws: ``WaterfallProblem`` (``WaterfallProblem/Kind/notFound`` for an unknown view).
    public func view(_ name: String, feed: String) async throws -> Versioned<Components.Schemas.ListedView> {
        try await call {
            let ok = try await $0.getView(path: .init(feed: feed, view: name)).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// Saves a view under `name` (replacing one of that name) (`PUT /v1/feeds/{feed}/views/{view}`).
    /// - Throws: ``WaterfallProblem`` for a rule the server refuses, with the path of its fault.
    @discardableResult
    public func saveView(_ name: String, feed: String, rule: Components.Schemas.ViewRule) async throws
        -> Components.Schemas.ListedView
    {
        try await call {
            try await $0.putView(path: .init(feed: feed, view: name), body: .json(rule)).ok.body.json
        }
    }

    /// Removes a view; its feed's images stay (`DELETE /v1/feeds/{feed}/views/{view}`).
    public func removeView(_ name: String, feed: String) async throws {
        try await call { _ = try await $0.deleteView(path: .init(feed: feed, view: name)).noContent }
    }

    /// A view's images in the feed's order, `limit` from `offset`
    /// (`GET /v1/feeds/{feed}/views/{view}/images`).
    public func images(feed: String, view: String, offset: Int? = nil, limit: Int? = nil) async throws -> Versioned<
        Components.Schemas.ImageList
    > {
        try await call {
            let ok = try await $0.viewListImages(
                path: .init(feed: feed, view: view), query: .init(offset: offset, limit: limit)
            ).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// A page of a saved layout over a view's images alone
    /// (`GET /v1/feeds/{feed}/views/{view}/layouts/{name}/page`).
    public func page(feed: String, view: String, layout: String, offset: Int? = nil, limit: Int? = nil)
        async throws -> Versioned<Components.Schemas.Page>
    {
        try await call {
            let ok = try await $0.viewGetLayoutPage(
                path: .init(feed: feed, view: view, name: layout), query: .init(offset: offset, limit: limit)
            ).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    // MARK: Share links

    /// Makes a share link to a feed, or one of its views, optionally to one named layout alone,
    /// until `expires` (a duration such as `7d`, or an ISO 8601 time; nil: never)
    /// (`POST /v1/shares`). Its `path` is shown this once.
    public func share(feed: String, view: String? = nil, layout: String? = nil, expires: String? = nil)
        async throws -> Components.Schemas.NewShare
    {
        try await call {
            try await $0.createShare(
                body: .json(.init(feed: feed, view: view, layout: layout, expires: expires))
            ).created.body.json
        }
    }

    /// Every share link, by id, without their tokens (`GET /v1/shares`).
    public func shares() async throws -> Components.Schemas.ShareList {
        try await call { try await $0.listShares().ok.body.json }
    }

    /// Removes a share link: its path answers 404 within a second (`DELETE /v1/shares/{id}`).
    public func removeShare(id: Int) async throws {
        try await call { _ = try await $0.deleteShare(path: .init(id: id)).noContent }
    }

    /// What the share link of `token` (its path without `/s/`) hands out, at its current
    /// revision, which ``sharedPage(token:layout:offset:limit:revision:)`` may pin
    /// (`GET /s/{token}`). No key is needed.
    /// - Throws: ``WaterfallProblem`` (``WaterfallProblem/Kind/notFound`` for a link removed,
    ///   expired or never made).
    public func shared(token: String) async throws -> Versioned<Components.Schemas.SharedRoot> {
        try await call {
            let ok = try await $0.getShare(path: .init(token: token)).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }

    /// A page of a saved layout through a share link (`GET /s/{token}/layouts/{name}/page`).
    /// - Parameter revision: the revision to pin the answer to (`Cache-Control: public,
    ///   immutable`): the link's current one, else ``WaterfallProblem/Kind/gone``.
    public func sharedPage(
        token: String, layout: String, offset: Int? = nil, limit: Int? = nil, revision: Int? = nil
    ) async throws -> Versioned<Components.Schemas.Page> {
        try await call {
            let ok = try await $0.shareGetLayoutPage(
                path: .init(token: token, name: layout),
                query: .init(offset: offset, limit: limit, revision: revision)
            ).ok
            return Versioned(try ok.body.json, etag: ok.headers.eTag)
        }
    }
}

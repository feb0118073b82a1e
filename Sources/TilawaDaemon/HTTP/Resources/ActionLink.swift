/// What a client may do next with a resource: `{"href": "/v1/…", "method": "POST"}`.
struct ActionLink: Encodable, Sendable, Equatable {
    let href: String
    let method: String
}

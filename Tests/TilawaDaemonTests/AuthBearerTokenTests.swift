import Testing
@testable import TilawaDaemon

@Suite("Authorization header")
struct AuthBearerTokenTests {
    struct Case: Sendable, CustomTestStringConvertible {
        let header: String?
        let token: String?
        var testDescription: String { header.map { String(reflecting: $0) } ?? "no header" }
    }

    @Test("Bearer, any case, one or more spaces, a b64token", arguments: [
        Case(header: "Bearer abc.def.ghi", token: "abc.def.ghi"),
        Case(header: "bearer abc.def.ghi", token: "abc.def.ghi"),
        Case(header: "BEARER x", token: "x"),
        Case(header: "BeArEr x", token: "x"),
        Case(header: "Bearer a-b_c~d+e/f", token: "a-b_c~d+e/f"),
        Case(header: "Bearer abc==", token: "abc=="),
        Case(header: nil, token: nil),
        Case(header: "", token: nil),
        Case(header: "Bearer", token: nil),
        Case(header: "Bearer ", token: nil),
        Case(header: "Bearer  x", token: "x"),
        Case(header: "Bearer    abc.def", token: "abc.def"),
        Case(header: "Bearer  ", token: nil),
        Case(header: "Bearer \tx", token: nil),
        Case(header: "Bearer\tx", token: nil),
        Case(header: " Bearer x", token: nil),
        Case(header: "Bearer x ", token: nil),
        Case(header: "Bearer x y", token: nil),
        Case(header: "Bearerx", token: nil),
        Case(header: "Bearer: x", token: nil),
        Case(header: "Basic dXNlcjpwYXNz", token: nil),
        Case(header: "Token x", token: nil),
        Case(header: "Bearer ==", token: nil),
        Case(header: "Bearer a=b", token: nil),
        Case(header: "Bearer \"x\"", token: nil),
        Case(header: "Bearer é", token: nil),
        Case(header: "Bearer x,y", token: nil),
    ])
    func parse(_ example: Case) throws {
        if let token = example.token {
            #expect(try bearerToken(fromAuthorizationHeader: example.header) == token)
        } else {
            #expect(throws: AuthError.missingToken) { try bearerToken(fromAuthorizationHeader: example.header) }
        }
    }
}

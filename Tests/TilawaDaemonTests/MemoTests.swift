import Testing
@testable import TilawaDaemon

/// `Memo` (an event's push payload worked out once for all its devices, issue 45; that the
/// badge and the stored bytes are part of the key, the APNs delivery tests' badges say).
@Suite("Memo: an answer made once per key, forgotten past its capacity")
struct MemoTests {
    @Test("A key asked again is answered from the memo; another key is made; past the capacity the memo starts afresh")
    func memo() {
        let memo = Memo<String, Int>(capacity: 3)
        var made = 0
        func value(_ key: String) -> Int { memo.value(for: key) { made += 1; return key.count * 10 + made } }
        #expect(value("a") == 11)
        #expect(value("a") == 11)
        #expect(made == 1)
        #expect(value("bb") == 22)
        #expect(value("ccc") == 33)
        #expect(made == 3 && memo.count == 3)
        // A fourth key: the memo is emptied first, so "a" is made again.
        #expect(value("dddd") == 44)
        #expect(memo.count == 1)
        #expect(value("a") == 15)
        #expect(made == 5)
    }
}

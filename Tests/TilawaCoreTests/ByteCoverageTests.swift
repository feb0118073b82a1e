import Testing
@testable import TilawaCore

@Suite("ByteCoverage")
struct ByteCoverageTests {
    @Test("ranges merge in any order, overlapping or touching; 95 % of the bytes is listened")
    func merges() {
        var coverage = ByteCoverage()
        coverage.add(900..<1_000)  // players read the end first
        coverage.add(0..<100)
        coverage.add(100..<200)  // touching
        coverage.add(150..<400)  // overlapping
        coverage.add(0..<0)
        #expect(coverage.ranges == [0..<400, 900..<1_000])
        #expect(coverage.count == 500 && !coverage.isListened(size: 1_000))
        coverage.add(400..<900)
        #expect(coverage.ranges == [0..<1_000] && coverage.isListened(size: 1_000))
        #expect(ByteCoverage([0..<949]).isListened(size: 1_000) == false)
        #expect(ByteCoverage([0..<950]).isListened(size: 1_000))
        #expect(!ByteCoverage().isListened(size: 0))
    }
}

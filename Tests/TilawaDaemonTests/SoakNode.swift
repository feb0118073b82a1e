import Foundation
import TilawaTestSupport

/// One `tilawa serve` of a soak's nodes (NodeSoakTests, ChaosSoakTests), started again after a
/// kill on the same state directory; its log kept across restarts.
final class SoakNode: @unchecked Sendable {
    // `@unchecked`: `process` and `logs` are replaced only by the test's own task between
    // rounds (kill, then start), never while another task reads them.
    let name: String
    /// Where its log and working directory are.
    let directory: String
    let stateDirectory: String
    let environment: [String: String]
    var process: ServeProcess
    var logs: [String] = []

    /// - Parameter stateDirectory: the node's state directory, `directory/var` unless given (a
    ///   small filesystem of the test's, say).
    init(name: String, directory: String, stateDirectory: String? = nil, environment: [String: String]) throws {
        self.name = name
        self.directory = directory
        self.stateDirectory = stateDirectory ?? directory + "/var"
        self.environment = environment
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: self.stateDirectory, withIntermediateDirectories: true)
        process = try ServeProcess(stateDirectory: self.stateDirectory, port: try unusedPort(), directory: directory, environment: environment)
    }

    var port: Int { process.port }

    func restart() throws {
        logs.append(process.log)
        process = try ServeProcess(stateDirectory: stateDirectory, port: try unusedPort(), directory: directory, environment: environment)
    }

    var allLogs: String { (logs + [process.log]).joined(separator: "\n") }

    /// The last lines of its log, for a failure's message.
    func logTail(lines: Int = 40) -> String {
        "node \(name) (pid \(process.pid)), last lines of its log:\n" + process.log.split(separator: "\n").suffix(lines).joined(separator: "\n")
    }
}

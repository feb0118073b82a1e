import Foundation
import HTTPTypes
import Hummingbird
import TilawaCore

/// A JSON value inside a problem object.
public enum ProblemValue: Encodable, Sendable, Equatable {
    case string(String)
    case int(Int)
    case double(Double)
    case bool(Bool)
    case date(Date)
    case strings([String])
    case analysis(AudioAnalysis)
    case null

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case let .string(value): try container.encode(value)
        case let .int(value): try container.encode(value)
        case let .double(value): try container.encode(value)
        case let .bool(value): try container.encode(value)
        case let .date(value): try container.encode(value)
        case let .strings(value): try container.encode(value)
        case let .analysis(value): try container.encode(value)
        case .null: try container.encodeNil()
        }
    }
}

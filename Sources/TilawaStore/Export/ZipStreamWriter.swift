import Foundation
import Glibc

/// A zip archive written front to back without holding it (PKWARE APPNOTE 6.3): each entry
/// stored (audio is compressed already), its CRC-32 computed while its bytes go out and given
/// in a data descriptor after them, the central directory at the end. An entry or an offset
/// past 4 GiB (or past `zip64Threshold`, for tests) gets ZIP64 fields, and so does the end
/// record when the directory needs them. Names are UTF-8 (flag bit 11).
public struct ZipStreamWriter {
    public typealias Emit = ([UInt8]) async throws -> Void

    private struct Central {
        var name: [UInt8]
        var crc: UInt32
        var size: UInt64
        var offset: UInt64
        var time: UInt16
        var date: UInt16
        var zip64: Bool
    }

    private let emit: Emit
    private let zip64Threshold: UInt64
    private var offset: UInt64 = 0
    private var entries: [Central] = []

    public init(zip64Threshold: UInt64 = 0xFFFF_FFFF, emit: @escaping Emit) {
        self.zip64Threshold = zip64Threshold
        self.emit = emit
    }

    /// Bytes written so far.
    public var written: UInt64 { offset }

    /// Adds `data` as `name`.
    public mutating func add(name: String, data: [UInt8], modified: Date) async throws {
        var crc = CRC32()
        crc.update(data[...])
        let zip64 = try await header(name: name, size: UInt64(data.count), modified: modified)
        try await send(data)
        try await finishEntry(crc: crc.value, size: UInt64(data.count), zip64: zip64)
    }

    /// Adds the file at `path` as `name`, read in pieces; false (nothing written) when there is
    /// no path or it cannot be opened. A file that shrinks while it is read ends its entry where it ends (the
    /// CRC and size given are of what was sent).
    public mutating func addFile(name: String, path: String?, modified: Date) async throws -> Bool {
        guard let path else { return false }
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else { return false }
        let zip64 = try await header(name: name, size: UInt64(info.st_size), modified: modified)
        var crc = CRC32()
        var size: UInt64 = 0
        var buffer = [UInt8](repeating: 0, count: 256 * 1024)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            crc.update(buffer[0..<count])
            try await send(Array(buffer[0..<count]))
            size += UInt64(count)
        }
        try await finishEntry(crc: crc.value, size: size, zip64: zip64 || size >= zip64Threshold)
        return true
    }

    /// Writes the central directory and the end records.
    public mutating func finish() async throws {
        let start = offset
        for entry in entries {
            let sizeOver = entry.zip64 || entry.size >= zip64Threshold
            let offsetOver = entry.offset >= zip64Threshold
            var extra: [UInt8] = []
            if sizeOver || offsetOver {
                var fields: [UInt8] = []
                if sizeOver { fields += le64(entry.size) + le64(entry.size) }
                if offsetOver { fields += le64(entry.offset) }
                extra = le16(0x0001) + le16(UInt16(fields.count)) + fields
            }
            var record = le32(0x0201_4B50) + le16(0x0300 | 45) + le16(sizeOver || offsetOver ? 45 : 20) + le16(0x0808) + le16(0)
            record += le16(entry.time) + le16(entry.date) + le32(entry.crc)
            record += le32(sizeOver ? 0xFFFF_FFFF : UInt32(entry.size)) + le32(sizeOver ? 0xFFFF_FFFF : UInt32(entry.size))
            record += le16(UInt16(entry.name.count)) + le16(UInt16(extra.count)) + le16(0) + le16(0) + le16(0)
            record += le32(UInt32(0o100644) << 16) + le32(offsetOver ? 0xFFFF_FFFF : UInt32(entry.offset))
            try await send(record + entry.name + extra)
        }
        let directorySize = offset - start
        let count = UInt64(entries.count)
        let needs64 = count >= 0xFFFF || start >= zip64Threshold || directorySize >= zip64Threshold
        if needs64 {
            let end64 = offset
            var record = le32(0x0606_4B50) + le64(44) + le16(0x0300 | 45) + le16(45) + le32(0) + le32(0)
            record += le64(count) + le64(count) + le64(directorySize) + le64(start)
            record += le32(0x0706_4B50) + le32(0) + le64(end64) + le32(1)
            try await send(record)
        }
        var end = le32(0x0605_4B50) + le16(0) + le16(0)
        end += le16(needs64 ? 0xFFFF : UInt16(count)) + le16(needs64 ? 0xFFFF : UInt16(count))
        end += le32(needs64 ? 0xFFFF_FFFF : UInt32(directorySize)) + le32(needs64 ? 0xFFFF_FFFF : UInt32(start)) + le16(0)
        try await send(end)
    }

    /// The local header; whether the entry is ZIP64.
    private mutating func header(name: String, size: UInt64, modified: Date) async throws -> Bool {
        let nameBytes = Array(name.utf8)
        let zip64 = size >= zip64Threshold || offset >= zip64Threshold
        let (time, date) = Self.dos(modified)
        entries.append(Central(name: nameBytes, crc: 0, size: 0, offset: offset, time: time, date: date, zip64: zip64))
        let extra: [UInt8] = zip64 ? le16(0x0001) + le16(16) + le64(0) + le64(0) : []
        var record = le32(0x0403_4B50) + le16(zip64 ? 45 : 20) + le16(0x0808) + le16(0) + le16(time) + le16(date) + le32(0)
        record += le32(zip64 ? 0xFFFF_FFFF : 0) + le32(zip64 ? 0xFFFF_FFFF : 0) + le16(UInt16(nameBytes.count)) + le16(UInt16(extra.count))
        try await send(record + nameBytes + extra)
        return zip64
    }

    private mutating func finishEntry(crc: UInt32, size: UInt64, zip64: Bool) async throws {
        entries[entries.count - 1].crc = crc
        entries[entries.count - 1].size = size
        let wide = entries[entries.count - 1].zip64
        entries[entries.count - 1].zip64 = wide || zip64
        // The descriptor's width follows the local header (a ZIP64 one has 8-byte sizes).
        let descriptor = le32(0x0807_4B50) + le32(crc) + (wide ? le64(size) + le64(size) : le32(UInt32(truncatingIfNeeded: size)) + le32(UInt32(truncatingIfNeeded: size)))
        try await send(descriptor)
    }

    private mutating func send(_ bytes: [UInt8]) async throws {
        try await emit(bytes)
        offset += UInt64(bytes.count)
    }

    static func dos(_ date: Date) -> (UInt16, UInt16) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let year = max(1980, min(2107, parts.year ?? 1980))
        let time = UInt16((parts.hour ?? 0) << 11 | (parts.minute ?? 0) << 5 | (parts.second ?? 0) / 2)
        let day = UInt16((year - 1980) << 9 | (parts.month ?? 1) << 5 | (parts.day ?? 1))
        return (time, day)
    }
}

private func le16(_ value: UInt16) -> [UInt8] { [UInt8(value & 0xFF), UInt8(value >> 8)] }
private func le32(_ value: UInt32) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
private func le64(_ value: UInt64) -> [UInt8] { (0..<8).map { UInt8((value >> (8 * UInt64($0))) & 0xFF) } }

/// CRC-32 (IEEE 802.3, reflected, as zip uses).
struct CRC32 {
    private static let table: [UInt32] = (0..<256).map { index in
        var value = UInt32(index)
        for _ in 0..<8 { value = value & 1 == 1 ? 0xEDB8_8320 ^ (value >> 1) : value >> 1 }
        return value
    }
    private var state: UInt32 = 0xFFFF_FFFF

    mutating func update(_ bytes: ArraySlice<UInt8>) {
        var crc = state
        for byte in bytes { crc = Self.table[Int((crc ^ UInt32(byte)) & 0xFF)] ^ (crc >> 8) }
        state = crc
    }

    var value: UInt32 { state ^ 0xFFFF_FFFF }
}

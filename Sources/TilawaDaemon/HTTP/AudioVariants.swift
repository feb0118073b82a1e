import Foundation
import HTTPTypes
import Hummingbird
import TilawaAudio
import TilawaStore

/// The container an audio route answers in: Ogg Opus by default; the same packets in MP4 or
/// CAF when `?format=` (`ogg`, `mp4`, `caf`) or `Accept` asks for them (players that do not
/// read Ogg, AVPlayer first). Each is its own representation: its own `ETag`, `Range` over
/// its own bytes, and `Vary: Accept` on all of them.
enum AudioVariants {
    /// The requested container (nil: Ogg); 400 for an unknown `format`.
    static func requested(_ request: Request) throws -> OpusContainer? {
        if let format = request.uri.queryParameters.get("format") {
            switch format.lowercased() {
            case "ogg", "opus": return nil
            case "mp4", "m4a": return .mp4
            case "caf": return .caf
            default:
                throw APIProblem.badRequest("invalid_format", "format must be ogg, mp4 or caf.")
            }
        }
        guard let accept = request.headers[.accept] else { return nil }
        // The most preferred of the types this route has (q-values; ties keep Ogg, then MP4).
        var best: (container: OpusContainer?, quality: Double) = (nil, -1)
        for item in accept.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let type = parts.first else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            let container: OpusContainer?
            switch type {
            case "audio/ogg", "application/ogg", "audio/opus": container = nil
            case "audio/mp4", "audio/m4a", "audio/x-m4a": container = .mp4
            case "audio/x-caf", "audio/caf": container = .caf
            default: continue
            }
            if quality > best.quality { best = (container, quality) }
        }
        return best.quality > 0 ? best.container : nil
    }

    /// The variant's path beside the Ogg file: `x.opus` → `x.m4a`, `x.caf`.
    /// Works on relative paths (an artifact's) and absolute ones alike.
    static func path(ofOgg oggPath: String, container: OpusContainer) -> String {
        let name = oggPath.lastIndex(of: "/").map { oggPath.index(after: $0) } ?? oggPath.startIndex
        let stem = oggPath[name...].lastIndex(of: ".").map { oggPath[..<$0] } ?? oggPath[...]
        return stem + "." + container.fileExtension
    }
}

extension APIContext {
    /// Serves an encoded recording (`artifact`, the Ogg file's path in the artifact store) in
    /// the container the request asks for; a variant the encode job did not make (a recording
    /// older than variants) is made now, once, from the same packets.
    func respondAudio(artifact: String, id: String, request: Request, context: TilawaRequestContext,
                      onServed: (@Sendable (Range<Int>, Int) async -> Void)? = nil) async throws -> Response {
        let responder = ArtifactResponder()
        let store = runtime.stateDirectory.artifactStore
        var response: Response
        if let container = try AudioVariants.requested(request) {
            let variant = AudioVariants.path(ofOgg: artifact, container: container)
            let storage = store.storage
            if (try? await storage.size(of: variant)) == nil, (try? await storage.size(of: artifact)) != nil {
                // Made in a file of its own: players open several requests at once, and two
                // makings of one variant must not share a file (the same bytes either way).
                try await pool.run {
                    let source = try store.localCopy(of: artifact)
                    defer { source.release() }
                    let made = try store.temporaryPath(for: variant)
                    defer { unlink(made) }
                    _ = try OpusRemuxer.remux(oggPath: source.path, to: made, container: container)
                    try store.publish(variant, from: made)
                }
            }
            response = try await responder.respond(variant, in: store, id: "\(id)-\(container.fileExtension)",
                                                   contentType: container.mediaType, request: request, context: context, onServed: onServed)
        } else {
            response = try await responder.respond(artifact, in: store, id: id, contentType: "audio/ogg",
                                                   request: request, context: context, onServed: onServed)
        }
        response.headers[.vary] = "Accept"
        return response
    }
}

extension APIContext {
    /// Serves an artifact's waveform peaks (audiowaveform JSON; `artifact` relative to the
    /// artifact store) for the recording, reply, comment or annotation `id`, with its own ETag.
    func respondWaveform(artifact: String, id: String, request: Request, context: TilawaRequestContext) async throws -> Response {
        try await ArtifactResponder().respond(artifact, in: runtime.stateDirectory.artifactStore,
                                              id: id + "-peaks", contentType: "application/json", request: request, context: context)
    }
}

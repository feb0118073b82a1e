import Foundation
import Logging
import TilawaAudio
import TilawaCore
import TilawaPostgres
import TilawaStore

/// The wired-up parts every command and service shares, built from one configuration:
/// the state directory, the database, the audio chain, the rules.
public struct TilawaRuntime: Sendable {
    public let configuration: TilawaConfiguration
    public let stateDirectory: StateDirectory
    public let database: AppDatabase
    /// How the log names students, coaches and subjects (`log.ids`), under the installation's key.
    public let pseudonyms: LogPseudonyms
    public let policy: ProgramPolicy
    /// The chain for student recordings (DESIGN §2 limits).
    public let processor: AudioProcessor
    /// The chain for coach replies (2 s to 30 min, not silent).
    public let feedbackProcessor: AudioProcessor
    public let clock: @Sendable () -> Date

    /// Prepares the state directory, opens (and migrates) the database and reads the
    /// installation's key for the log's pseudonyms (made the first time; not with `log.ids: clear`).
    public init(configuration: TilawaConfiguration, clock: @escaping @Sendable () -> Date = { Date() }) throws {
        self.configuration = configuration
        self.clock = clock
        stateDirectory = StateDirectory(path: configuration.stateDirectory, artifactStorage: try ArtifactStorageConfiguration.storage(in: configuration))
        try stateDirectory.prepare()
        database = try Self.openDatabase(configuration, stateDirectory)
        do {
            pseudonyms = try LogPseudonyms.configured(configuration.logIds, database: database, now: clock())
        } catch {
            // The runtime is not made, so nothing else will close the server's connections.
            (database.engine as? PostgresStore)?.close()
            throw error
        }
        var policy = ProgramPolicy(
            attemptWindow: configuration.attemptWindow,
            eocRequiredWeeks: configuration.program.eocRequiredWeeks,
            feedbackDueHours: configuration.program.feedbackDue / 3600,
            eocFeedbackDueBusinessDays: configuration.program.eocFeedbackDueBusinessDays,
            holidays: configuration.program.holidays,
            placementDueHours: configuration.program.placementDue / 3600,
            notificationSchedule: configuration.program.notificationSchedule)
        policy.lateJoiners = configuration.program.eocLateJoiners
        policy.consent = configuration.privacy.consentTerms
        self.policy = policy
        let encoder = configuration.encoder.settings
        processor = AudioProcessor(limits: configuration.audioLimits, encoder: encoder)
        feedbackProcessor = AudioProcessor(limits: configuration.feedbackLimits, encoder: encoder)
    }

    /// The store `database.url` names, migrated: `<state_dir>/tilawa.sqlite`, or PostgreSQL.
    static func openDatabase(_ configuration: TilawaConfiguration, _ stateDirectory: StateDirectory) throws -> AppDatabase {
        guard let location = configuration.database.postgres else {
            return try AppDatabase.open(path: stateDirectory.databasePath)
        }
        let store = PostgresStore(location: location, password: try configuration.database.password(),
                                  maximumConnections: configuration.database.maximumConnections, logger: Logger(label: "tilawa.postgres"))
        do {
            try store.migrate()
        } catch let StoreError.unavailable(reason) {
            store.close()
            throw StoreError.unavailable("\(reason) (`tilawa db check` checks the server step by step)")
        } catch {
            store.close()
            throw error
        }
        return AppDatabase(engine: store)
    }

    /// The path every recording takes.
    public var intake: SubmissionIntake {
        SubmissionIntake(database: database, stateDirectory: stateDirectory, processor: processor, policy: policy, clock: clock,
                         maxOffline: configuration.uploads.maxOffline)
    }

    /// The path every coach reply takes.
    public var feedbackIntake: FeedbackIntake { FeedbackIntake(runtime: self) }

    /// The chain for voice clips in a reply's thread.
    public var commentClips: CommentClipEncoder {
        CommentClipEncoder(stateDirectory: stateDirectory, encoder: processor.encoder)
    }

    /// The chain for a coach's spoken corrections on annotations (1–30 s).
    public var annotationClips: CommentClipEncoder {
        CommentClipEncoder(stateDirectory: stateDirectory, encoder: processor.encoder, limits: .annotationClip, family: .annotations)
    }

    /// The encoder of queued jobs.
    public var encodeRunner: EncodeJobRunner {
        var runner = EncodeJobRunner(database: database, stateDirectory: stateDirectory, processor: processor,
                                     feedbackProcessor: feedbackProcessor, clock: clock)
        runner.diskIsLow = diskLowCheck
        return runner
    }
}

extension EncoderConfiguration {
    /// The encoder settings these values describe (validated when the configuration was loaded).
    public var settings: OpusEncoderSettings {
        var settings = OpusEncoderSettings()
        settings.bitrate = bitrate
        settings.complexity = complexity
        settings.signal = OpusEncoderSettings.Signal(rawValue: signal) ?? .voice
        settings.targetLoudnessLUFS = targetLoudnessLUFS
        settings.peakCeilingDBFS = peakCeilingDBFS
        return settings
    }
}

/// The schema on PostgreSQL: the meaning of SQLite's migrations (`AppDatabase.migrator`),
/// in PostgreSQL's words.
///
/// The first migration is the whole SQLite schema as its 28 migrations left it; each later
/// migration on either engine gets its twin here, under the same name. Identifiers are written
/// as the store's SQL writes them and folded to lower case by PostgreSQL; GRDB reads columns
/// whatever their case. Types are what SQLite stores, so both engines give the same values:
/// text in byte order (`COLLATE "C"`, as SQLite compares), 64-bit integers (booleans are 0
/// and 1), doubles, bytes, and instants as GRDB's UTC text (`2026-11-27 14:44:13.123`), which
/// sorts as time does.
enum PostgresSchema {
    /// (name, SQL), applied in order, each once, in one transaction with its record.
    static let migrations: [(name: String, sql: String)] = [
        ("baseline: the SQLite schema through \"erasure: ledger\"", baseline),
        ("jobs: leases", #"ALTER TABLE job ADD COLUMN leaseExpiresAt text COLLATE "C""#),
        // A thread's messages of one instant are read in the order they were written, as SQLite's rowid gives them.
        ("comments: write order", "ALTER TABLE comment ADD COLUMN rowid bigint GENERATED ALWAYS AS IDENTITY"),
        ("uploads: any node", #"""
            ALTER TABLE resumableUpload ADD COLUMN holder text COLLATE "C";
            ALTER TABLE resumableUpload ADD COLUMN heldUntil text COLLATE "C";
            CREATE TABLE uploadSegment (
                uploadId text COLLATE "C" NOT NULL,
                startOffset bigint NOT NULL,
                length bigint NOT NULL,
                object text COLLATE "C" NOT NULL,
                PRIMARY KEY (uploadId, startOffset)
            )
            """#),
        ("nodes: seen", #"""
            CREATE TABLE node (
                id text COLLATE "C" PRIMARY KEY,
                startedAt text COLLATE "C" NOT NULL,
                seenAt text COLLATE "C" NOT NULL
            )
            """#),
        ("events: sending claims", #"""
            ALTER TABLE event ADD COLUMN sendingBy text COLLATE "C";
            ALTER TABLE event ADD COLUMN sendingUntil text COLLATE "C"
            """#),
        // PostgreSQL only (SQLite has one process, which wakes its own workers): a job queued
        // (new, or given back) and an event recorded wake every node's workers and notifier
        // when the transaction commits, whatever code path wrote them.
        ("jobs and events: wake-ups", #"""
            CREATE FUNCTION tilawa_wake_jobs() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('tilawa_jobs', '');
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER job_queued AFTER INSERT OR UPDATE OF state ON job
                FOR EACH ROW WHEN (NEW.state = 'queued') EXECUTE FUNCTION tilawa_wake_jobs();
            CREATE FUNCTION tilawa_wake_outbox() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN
                PERFORM pg_notify('tilawa_outbox', '');
                RETURN NULL;
            END
            $$;
            CREATE TRIGGER event_recorded AFTER INSERT ON event FOR EACH ROW EXECUTE FUNCTION tilawa_wake_outbox()
            """#),
        ("idempotency: holder", #"ALTER TABLE idempotencyKey ADD COLUMN holder text COLLATE "C""#),
        ("students: own quiet hours and reminder time", #"""
            ALTER TABLE student ADD COLUMN quietHours text COLLATE "C";
            ALTER TABLE student ADD COLUMN reminderTime text COLLATE "C"
            """#),
        ("erasure: subjects and re-admission", #"""
            ALTER TABLE erasure ADD COLUMN subjectDigest text COLLATE "C";
            ALTER TABLE erasure ADD COLUMN readmittedAt text COLLATE "C"
            """#),
        ("devices: pushes", #"""
            CREATE TABLE device (
                ownerKind text COLLATE "C" NOT NULL,
                ownerId text COLLATE "C" NOT NULL,
                deviceId text COLLATE "C" NOT NULL,
                platform text COLLATE "C" NOT NULL,
                token text COLLATE "C" NOT NULL,
                environment text COLLATE "C" NOT NULL,
                locale text COLLATE "C",
                appVersion text COLLATE "C",
                registeredAt text COLLATE "C" NOT NULL,
                updatedAt text COLLATE "C" NOT NULL,
                PRIMARY KEY (ownerKind, ownerId, deviceId)
            );
            CREATE UNIQUE INDEX device_token ON device (platform, token)
            """#),
        ("pushes: deliveries", #"""
            CREATE TABLE pushDelivery (
                eventSeq bigint NOT NULL,
                ownerKind text COLLATE "C" NOT NULL,
                ownerId text COLLATE "C" NOT NULL,
                deviceId text COLLATE "C" NOT NULL,
                state text COLLATE "C" NOT NULL,
                attempts bigint NOT NULL DEFAULT 0,
                nextAttemptAt text COLLATE "C" NOT NULL,
                lastError text COLLATE "C",
                sentAt text COLLATE "C",
                sendingBy text COLLATE "C",
                sendingUntil text COLLATE "C",
                PRIMARY KEY (eventSeq, ownerKind, ownerId, deviceId)
            );
            CREATE INDEX pushDelivery_due ON pushDelivery (state, nextAttemptAt);
            INSERT INTO meta (key, value, updatedAt)
            VALUES ('push_cursor', (SELECT CAST(COALESCE(MAX(seq), 0) AS text) FROM event),
                    to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'))
            ON CONFLICT (key) DO NOTHING
            """#),
        ("people: tokens valid after", #"""
            ALTER TABLE student ADD COLUMN tokensValidAfter text COLLATE "C";
            ALTER TABLE coach ADD COLUMN tokensValidAfter text COLLATE "C"
            """#),
        ("scim: provisioned users", #"""
            CREATE TABLE scimUser (
                role text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                subject text COLLATE "C" NOT NULL,
                externalId text COLLATE "C",
                name text COLLATE "C",
                displayName text COLLATE "C",
                emails text COLLATE "C",
                active bigint,
                version bigint NOT NULL,
                createdAt text COLLATE "C" NOT NULL,
                lastModified text COLLATE "C" NOT NULL,
                deletedAt text COLLATE "C",
                pausedEnrolmentId bigint,
                PRIMARY KEY (role, id)
            );
            CREATE UNIQUE INDEX scimUser_subject ON scimUser (subject);
            CREATE INDEX scimUser_externalId ON scimUser (externalId)
            """#),
        ("privacy: consent and erasure requests", #"""
            ALTER TABLE student ADD COLUMN dateOfBirth text COLLATE "C";
            CREATE TABLE consent (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                studentId text COLLATE "C" NOT NULL,
                version text COLLATE "C" NOT NULL,
                givenBy text COLLATE "C" NOT NULL,
                guardianName text COLLATE "C",
                givenAt text COLLATE "C" NOT NULL,
                withdrawnAt text COLLATE "C",
                withdrawnBy text COLLATE "C"
            );
            CREATE INDEX consent_student ON consent (studentId);
            CREATE UNIQUE INDEX consent_current ON consent (studentId) WHERE withdrawnAt IS NULL;
            CREATE TABLE erasureRequest (
                id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
                studentId text COLLATE "C" NOT NULL,
                requestedAt text COLLATE "C" NOT NULL,
                dueAt text COLLATE "C" NOT NULL,
                requestedBy text COLLATE "C" NOT NULL,
                cancelledAt text COLLATE "C",
                cancelledBy text COLLATE "C"
            );
            CREATE UNIQUE INDEX erasureRequest_pending ON erasureRequest (studentId) WHERE cancelledAt IS NULL;
            CREATE INDEX erasureRequest_due ON erasureRequest (dueAt) WHERE cancelledAt IS NULL
            """#),
        ("jobs: transient failures", "ALTER TABLE job ADD COLUMN transientFailures bigint NOT NULL DEFAULT 0"),
        // Existing rows' emails are filled in by SQL here, where SQLite's twin uses Swift's
        // `emailKey`: PostgreSQL's `lower` folds by the database's collation (only ASCII under
        // "C") and composes nothing, so an address stored with non-ASCII capitals or decomposed
        // letters matches a filter again once its user is next written.
        ("scim: email lookup, userName free once deleted", #"""
            CREATE TABLE scimUserEmail (
                role text COLLATE "C" NOT NULL,
                id text COLLATE "C" NOT NULL,
                ordinal bigint NOT NULL,
                value text COLLATE "C",
                type text COLLATE "C",
                display text COLLATE "C",
                isPrimary bigint,
                PRIMARY KEY (role, id, ordinal),
                FOREIGN KEY (role, id) REFERENCES scimUser (role, id) ON DELETE CASCADE
            );
            CREATE INDEX scimUserEmail_value ON scimUserEmail (value);
            DROP INDEX scimUser_subject;
            CREATE UNIQUE INDEX scimUser_subject ON scimUser (subject) WHERE deletedAt IS NULL;
            INSERT INTO scimUserEmail (role, id, ordinal, value, type, display, isPrimary)
                SELECT u.role, u.id, e.n - 1, lower(e.item ->> 'value'), lower(e.item ->> 'type'), lower(e.item ->> 'display'),
                       CASE e.item ->> 'primary' WHEN 'true' THEN 1 WHEN 'false' THEN 0 END
                FROM scimUser u CROSS JOIN LATERAL json_array_elements(CAST(u.emails AS json)) WITH ORDINALITY AS e(item, n)
                WHERE u.emails IS NOT NULL
            """#),
    ]

    /// The first migration's script, in three parts for length: the tables, in the order their
    /// references need, then the indexes and the triggers that keep the artifact-bytes total.
    static let baseline = baselineProgrammeTables + "\n\n" + baselineActivityTables + "\n\n" + baselineIndexesAndTriggers
}

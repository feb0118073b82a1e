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
    ]

    static let baseline = #"""
        CREATE TABLE semester (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL,
            startDate text COLLATE "C" NOT NULL,
            timeZone text COLLATE "C" NOT NULL,
            weekCount bigint NOT NULL,
            catchUpGraceDays bigint NOT NULL
        );
        
        CREATE TABLE coach (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL,
            email text COLLATE "C",
            "placing" bigint NOT NULL DEFAULT 0,
            gender text COLLATE "C",
            bio text COLLATE "C",
            photoPath text COLLATE "C",
            photoType text COLLATE "C",
            photoSHA256 text COLLATE "C",
            subject text COLLATE "C"
        );
        
        CREATE TABLE level (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL,
            position bigint NOT NULL DEFAULT 0,
            eocOpensWeek bigint NOT NULL DEFAULT 14,
            eocTitle text COLLATE "C",
            eocPassage text COLLATE "C",
            eocArabic text COLLATE "C",
            eocCovers text COLLATE "C",
            eocAyahs text COLLATE "C"
        );
        
        CREATE TABLE curriculumWeek (
            levelId text COLLATE "C" NOT NULL REFERENCES level (id) ON DELETE CASCADE,
            week bigint NOT NULL,
            title text COLLATE "C" NOT NULL,
            passage text COLLATE "C" NOT NULL,
            ayahs text COLLATE "C",
            PRIMARY KEY (levelId, week)
        );
        
        CREATE TABLE student (
            id text COLLATE "C" PRIMARY KEY,
            name text COLLATE "C" NOT NULL,
            gender text COLLATE "C",
            timeZone text COLLATE "C",
            timeZoneSetBy text COLLATE "C",
            pushFeedback bigint NOT NULL DEFAULT 1,
            pushDeadlines bigint NOT NULL DEFAULT 1,
            pushAnnouncements bigint NOT NULL DEFAULT 1,
            pushQuestions bigint NOT NULL DEFAULT 1,
            subject text COLLATE "C",
            erasedAt text COLLATE "C"
        );
        
        CREATE TABLE enrolment (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            studentId text COLLATE "C" NOT NULL REFERENCES student (id),
            semesterId text COLLATE "C" NOT NULL REFERENCES semester (id),
            levelId text COLLATE "C" REFERENCES level (id),
            coachId text COLLATE "C" REFERENCES coach (id),
            createdAt text COLLATE "C" NOT NULL,
            placedAt text COLLATE "C",
            placedBy text COLLATE "C",
            outcome text COLLATE "C",
            eocAvailableNotifiedAt text COLLATE "C",
            owesFromWeek bigint NOT NULL DEFAULT 1,
            state text COLLATE "C" NOT NULL DEFAULT 'active',
            UNIQUE (studentId, semesterId)
        );
        
        CREATE TABLE submission (
            id text COLLATE "C" PRIMARY KEY,
            studentId text COLLATE "C" NOT NULL REFERENCES student (id),
            semesterId text COLLATE "C" NOT NULL,
            kind text COLLATE "C" NOT NULL,
            week bigint,
            state text COLLATE "C" NOT NULL,
            receivedAt text COLLATE "C" NOT NULL,
            late bigint NOT NULL,
            analysis text COLLATE "C" NOT NULL,
            source text COLLATE "C" NOT NULL,
            warnings text COLLATE "C" NOT NULL,
            originalPath text COLLATE "C",
            originalBytes bigint NOT NULL,
            audioPath text COLLATE "C",
            audioBytes bigint,
            waveformPath text COLLATE "C",
            outputGainDB double precision,
            encodedAt text COLLATE "C",
            failureReason text COLLATE "C",
            origin text COLLATE "C" NOT NULL,
            overdueNotifiedAt text COLLATE "C",
            enrolmentId bigint REFERENCES enrolment (id),
            feedbackDueAt text COLLATE "C",
            result text COLLATE "C",
            supersededBy text COLLATE "C",
            withdrawnAt text COLLATE "C",
            recordedAt text COLLATE "C",
            speechSegments text COLLATE "C",
            ayahMarkers text COLLATE "C",
            grantId text COLLATE "C",
            levelId text COLLATE "C",
            title text COLLATE "C"
        );
        
        CREATE TABLE rejection (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            studentId text COLLATE "C" NOT NULL,
            slot text COLLATE "C" NOT NULL,
            receivedAt text COLLATE "C" NOT NULL,
            code text COLLATE "C" NOT NULL,
            reasons text COLLATE "C" NOT NULL,
            message text COLLATE "C" NOT NULL,
            detail text COLLATE "C" NOT NULL,
            analysis text COLLATE "C",
            origin text COLLATE "C" NOT NULL,
            bytes bigint NOT NULL
        );
        
        CREATE TABLE feedback (
            id text COLLATE "C" PRIMARY KEY,
            submissionId text COLLATE "C" NOT NULL REFERENCES submission (id),
            coachId text COLLATE "C" NOT NULL,
            receivedAt text COLLATE "C" NOT NULL,
            notes text COLLATE "C",
            state text COLLATE "C" NOT NULL,
            analysis text COLLATE "C" NOT NULL,
            originalPath text COLLATE "C",
            audioPath text COLLATE "C",
            audioBytes bigint,
            waveformPath text COLLATE "C",
            outputGainDB double precision,
            origin text COLLATE "C" NOT NULL,
            result text COLLATE "C",
            fetchedRanges text COLLATE "C",
            listenedAt text COLLATE "C"
        );
        
        CREATE TABLE job (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            kind text COLLATE "C" NOT NULL,
            subjectId text COLLATE "C" NOT NULL,
            state text COLLATE "C" NOT NULL,
            attempts bigint NOT NULL DEFAULT 0,
            createdAt text COLLATE "C" NOT NULL,
            notBefore text COLLATE "C" NOT NULL,
            lockedBy text COLLATE "C",
            lockedAt text COLLATE "C",
            lastError text COLLATE "C"
        );
        
        CREATE TABLE idempotencyKey (
            owner text COLLATE "C" NOT NULL,
            key text COLLATE "C" NOT NULL,
            requestHash text COLLATE "C" NOT NULL,
            state text COLLATE "C" NOT NULL,
            responseStatus bigint,
            responseBody bytea,
            createdAt text COLLATE "C" NOT NULL,
            PRIMARY KEY (owner, key)
        );
        
        CREATE TABLE dropFile (
            sha256 text COLLATE "C" PRIMARY KEY,
            coachId text COLLATE "C" NOT NULL,
            fileName text COLLATE "C" NOT NULL,
            outcome text COLLATE "C" NOT NULL,
            reason text COLLATE "C",
            feedbackId text COLLATE "C",
            processedAt text COLLATE "C" NOT NULL
        );
        
        CREATE TABLE meta (
            key text COLLATE "C" PRIMARY KEY,
            value text COLLATE "C" NOT NULL,
            updatedAt text COLLATE "C" NOT NULL
        );
        
        CREATE TABLE enrolmentChange (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            enrolmentId bigint NOT NULL REFERENCES enrolment (id),
            change text COLLATE "C" NOT NULL,
            levelId text COLLATE "C",
            coachId text COLLATE "C",
            changedAt text COLLATE "C" NOT NULL,
            changedBy text COLLATE "C" NOT NULL,
            auditId bigint
        );
        
        CREATE TABLE eventReadCursor (
            studentId text COLLATE "C" PRIMARY KEY,
            seq bigint NOT NULL,
            updatedAt text COLLATE "C" NOT NULL
        );
        
        CREATE TABLE scheduledNotice (
            enrolmentId bigint NOT NULL REFERENCES enrolment (id),
            kind text COLLATE "C" NOT NULL,
            week bigint NOT NULL,
            daysBefore bigint NOT NULL,
            eventId text COLLATE "C" NOT NULL,
            sentAt text COLLATE "C" NOT NULL,
            PRIMARY KEY (enrolmentId, kind, week, daysBefore)
        );
        
        CREATE TABLE comment (
            id text COLLATE "C" PRIMARY KEY,
            feedbackId text COLLATE "C" NOT NULL REFERENCES feedback (id),
            submissionId text COLLATE "C" NOT NULL,
            studentId text COLLATE "C" NOT NULL,
            author text COLLATE "C" NOT NULL,
            authorId text COLLATE "C" NOT NULL,
            text text COLLATE "C" NOT NULL,
            createdAt text COLLATE "C" NOT NULL,
            answeredAt text COLLATE "C",
            dueAt text COLLATE "C",
            audioPath text COLLATE "C",
            audioBytes bigint,
            waveformPath text COLLATE "C",
            durationSeconds double precision,
            outputGainDB double precision
        );
        
        CREATE TABLE event (
            seq bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            id text COLLATE "C" NOT NULL UNIQUE,
            studentId text COLLATE "C",
            type text COLLATE "C" NOT NULL,
            -- The JSON document as bytes, as GRDB stores the record's `Data` in SQLite.
            payload bytea NOT NULL,
            occurredAt text COLLATE "C" NOT NULL,
            deliveredAt text COLLATE "C",
            attempts bigint NOT NULL DEFAULT 0,
            nextAttemptAt text COLLATE "C" NOT NULL,
            lastError text COLLATE "C",
            recipient text COLLATE "C" NOT NULL DEFAULT 'student',
            recipientId text COLLATE "C",
            queue text COLLATE "C" NOT NULL DEFAULT '',
            readAt text COLLATE "C"
        );
        
        CREATE TABLE staffNotice (
            kind text COLLATE "C" NOT NULL,
            recipientId text COLLATE "C" NOT NULL,
            localDate text COLLATE "C" NOT NULL,
            eventId text COLLATE "C" NOT NULL,
            sentAt text COLLATE "C" NOT NULL,
            PRIMARY KEY (kind, recipientId, localDate)
        );
        
        CREATE TABLE resumableUpload (
            id text COLLATE "C" PRIMARY KEY,
            studentId text COLLATE "C" NOT NULL,
            enrolmentId bigint,
            slot text COLLATE "C" NOT NULL,
            uploadProtocol text COLLATE "C" NOT NULL,
            length bigint,
            "offset" bigint NOT NULL DEFAULT 0,
            fileExtension text COLLATE "C" NOT NULL,
            fileName text COLLATE "C",
            recordedAt text COLLATE "C",
            createdAt text COLLATE "C" NOT NULL,
            updatedAt text COLLATE "C" NOT NULL,
            expiresAt text COLLATE "C" NOT NULL,
            idempotencyKey text COLLATE "C",
            submissionId text COLLATE "C" NOT NULL,
            state text COLLATE "C" NOT NULL,
            answerStatus bigint,
            answerBody bytea,
            refusalNotifiedAt text COLLATE "C",
            refusalOwedSince text COLLATE "C"
        );
        
        CREATE TABLE annotation (
            id text COLLATE "C" PRIMARY KEY,
            submissionId text COLLATE "C" NOT NULL REFERENCES submission (id),
            studentId text COLLATE "C" NOT NULL,
            coachId text COLLATE "C" NOT NULL,
            atSeconds double precision NOT NULL,
            surah bigint,
            ayah bigint,
            kind text COLLATE "C" NOT NULL,
            text text COLLATE "C" NOT NULL,
            createdAt text COLLATE "C" NOT NULL,
            audioPath text COLLATE "C",
            audioBytes bigint,
            waveformPath text COLLATE "C",
            durationSeconds double precision,
            outputGainDB double precision,
            -- Ties in time are read in the order rows were written, as SQLite's rowid gives them.
            rowid bigint GENERATED ALWAYS AS IDENTITY
        );
        
        CREATE TABLE loginLink (
            secretHash text COLLATE "C" PRIMARY KEY,
            coachId text COLLATE "C" NOT NULL,
            createdAt text COLLATE "C" NOT NULL,
            expiresAt text COLLATE "C" NOT NULL,
            usedAt text COLLATE "C"
        );
        
        CREATE TABLE deskSession (
            secretHash text COLLATE "C" PRIMARY KEY,
            coachId text COLLATE "C" NOT NULL,
            csrfToken text COLLATE "C" NOT NULL,
            createdAt text COLLATE "C" NOT NULL,
            lastSeenAt text COLLATE "C" NOT NULL,
            expiresAt text COLLATE "C" NOT NULL
        );
        
        CREATE TABLE announcement (
            id text COLLATE "C" PRIMARY KEY,
            title text COLLATE "C" NOT NULL,
            body text COLLATE "C" NOT NULL,
            audience text COLLATE "C" NOT NULL,
            publishAt text COLLATE "C" NOT NULL,
            createdAt text COLLATE "C" NOT NULL,
            createdBy text COLLATE "C" NOT NULL,
            publishedAt text COLLATE "C",
            cancelledAt text COLLATE "C",
            recipients bigint
        );
        
        CREATE TABLE audit (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            at text COLLATE "C" NOT NULL,
            actor text COLLATE "C" NOT NULL,
            action text COLLATE "C" NOT NULL,
            studentId text COLLATE "C",
            otherStudentId text COLLATE "C",
            coachId text COLLATE "C",
            otherCoachId text COLLATE "C",
            reason text COLLATE "C" NOT NULL,
            before text COLLATE "C",
            after text COLLATE "C"
        );
        
        CREATE TABLE deadlineExtension (
            enrolmentId bigint NOT NULL REFERENCES enrolment (id),
            slot text COLLATE "C" NOT NULL,
            dueAt text COLLATE "C" NOT NULL,
            PRIMARY KEY (enrolmentId, slot)
        );
        
        CREATE TABLE attemptGrant (
            id text COLLATE "C" PRIMARY KEY,
            studentId text COLLATE "C" NOT NULL REFERENCES student (id),
            count bigint NOT NULL,
            expiresAt text COLLATE "C" NOT NULL,
            createdAt text COLLATE "C" NOT NULL
        );
        
        CREATE TABLE coachCover (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            coachId text COLLATE "C" NOT NULL REFERENCES coach (id),
            coveringCoachId text COLLATE "C" NOT NULL REFERENCES coach (id),
            startsAt text COLLATE "C" NOT NULL,
            until text COLLATE "C" NOT NULL
        );
        
        CREATE TABLE enrolmentPause (
            id bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY,
            enrolmentId bigint NOT NULL REFERENCES enrolment (id),
            startedAt text COLLATE "C" NOT NULL,
            endedAt text COLLATE "C"
        );
        
        CREATE TABLE erasure (
            studentId text COLLATE "C" PRIMARY KEY,
            erasedAt text COLLATE "C" NOT NULL
        );
        
        CREATE INDEX submission_student_received ON submission(studentId, receivedAt);
        CREATE INDEX submission_state_received ON submission(state, receivedAt);
        CREATE INDEX rejection_received ON rejection(receivedAt);
        CREATE INDEX rejection_student ON rejection(studentId, receivedAt);
        CREATE INDEX feedback_on_submissionId ON feedback(submissionId);
        CREATE INDEX job_state_notBefore ON job(state, notBefore);
        CREATE INDEX feedback_submission_received ON feedback(submissionId, receivedAt);
        CREATE INDEX submission_received_state ON submission(receivedAt, state);
        CREATE INDEX feedback_received ON feedback(receivedAt);
        CREATE INDEX job_state_created ON job(state, createdAt);
        CREATE INDEX dropFile_outcome_processed ON dropFile(outcome, processedAt);
        CREATE INDEX enrolment_on_coachId ON enrolment(coachId);
        CREATE INDEX enrolmentChange_on_enrolmentId ON enrolmentChange(enrolmentId);
        CREATE INDEX submission_enrolment_received ON submission(enrolmentId, receivedAt);
        CREATE INDEX submission_state_due ON submission(state, feedbackDueAt);
        CREATE INDEX comment_on_feedbackId ON comment(feedbackId);
        CREATE INDEX comment_open ON comment(author, answeredAt, dueAt);
        CREATE INDEX event_student_seq ON event(studentId, seq);
        CREATE INDEX event_undelivered ON event(deliveredAt, nextAttemptAt);
        CREATE INDEX event_delivered_occurred ON event(deliveredAt, occurredAt);
        CREATE INDEX event_queue_seq ON event(queue, seq);
        CREATE INDEX event_recipient_seq ON event(recipient, recipientId, seq);
        CREATE INDEX resumableUpload_student_state ON resumableUpload(studentId, state);
        CREATE INDEX resumableUpload_expiresAt ON resumableUpload(expiresAt);
        CREATE UNIQUE INDEX resumableUpload_student_key ON resumableUpload(studentId, idempotencyKey) WHERE idempotencyKey IS NOT NULL;
        CREATE INDEX comment_author_created ON comment(authorId, author, createdAt);
        CREATE INDEX annotation_submission ON annotation(submissionId, createdAt);
        CREATE INDEX annotation_student_ayah ON annotation(studentId, surah, ayah, createdAt);
        CREATE INDEX annotation_created ON annotation(createdAt);
        CREATE INDEX loginLink_expiresAt ON loginLink(expiresAt);
        CREATE INDEX deskSession_coachId ON deskSession(coachId);
        CREATE INDEX deskSession_expiresAt ON deskSession(expiresAt);
        CREATE INDEX announcement_due ON announcement(publishAt) WHERE (publishedAt IS NULL) AND (cancelledAt IS NULL);
        CREATE UNIQUE INDEX student_subject ON student(subject) WHERE subject IS NOT NULL;
        CREATE UNIQUE INDEX coach_subject ON coach(subject) WHERE subject IS NOT NULL;
        CREATE INDEX audit_at ON audit(at);
        CREATE INDEX audit_student ON audit(studentId, at);
        CREATE INDEX audit_coach ON audit(coachId, at);
        CREATE INDEX attemptGrant_on_studentId ON attemptGrant(studentId);
        CREATE INDEX coachCover_on_coachId ON coachCover(coachId);
        CREATE INDEX coachCover_on_coveringCoachId ON coachCover(coveringCoachId);
        CREATE INDEX enrolmentPause_on_enrolmentId ON enrolmentPause(enrolmentId);
        CREATE INDEX submission_grant ON submission(grantId) WHERE grantId IS NOT NULL;

        -- The running total of artifact bytes that `status` reads (SQLite's triggers, in PL/pgSQL).
        INSERT INTO meta (key, value, updatedAt)
        VALUES ('artifact_bytes', '0', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD HH24:MI:SS.MS'));

        CREATE FUNCTION submission_artifact_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            delta bigint := 0;
        BEGIN
            IF TG_OP <> 'DELETE' THEN
                delta := delta + CASE WHEN NEW.originalPath IS NULL THEN 0 ELSE NEW.originalBytes END
                               + CASE WHEN NEW.audioPath IS NULL THEN 0 ELSE COALESCE(NEW.audioBytes, 0) END;
            END IF;
            IF TG_OP <> 'INSERT' THEN
                delta := delta - CASE WHEN OLD.originalPath IS NULL THEN 0 ELSE OLD.originalBytes END
                               - CASE WHEN OLD.audioPath IS NULL THEN 0 ELSE COALESCE(OLD.audioBytes, 0) END;
            END IF;
            IF delta <> 0 THEN
                UPDATE meta SET value = (CAST(value AS bigint) + delta)::text WHERE key = 'artifact_bytes';
            END IF;
            RETURN NULL;
        END
        $$;

        CREATE TRIGGER submission_artifact_bytes
        AFTER INSERT OR UPDATE OF originalPath, originalBytes, audioPath, audioBytes OR DELETE ON submission
        FOR EACH ROW EXECUTE FUNCTION submission_artifact_bytes();

        -- Replies, questions and annotations: their encoded audio only.
        CREATE FUNCTION audio_artifact_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE
            delta bigint := 0;
        BEGIN
            IF TG_OP <> 'DELETE' THEN
                delta := delta + CASE WHEN NEW.audioPath IS NULL THEN 0 ELSE COALESCE(NEW.audioBytes, 0) END;
            END IF;
            IF TG_OP <> 'INSERT' THEN
                delta := delta - CASE WHEN OLD.audioPath IS NULL THEN 0 ELSE COALESCE(OLD.audioBytes, 0) END;
            END IF;
            IF delta <> 0 THEN
                UPDATE meta SET value = (CAST(value AS bigint) + delta)::text WHERE key = 'artifact_bytes';
            END IF;
            RETURN NULL;
        END
        $$;

        CREATE TRIGGER feedback_artifact_bytes AFTER INSERT OR UPDATE OF audioPath, audioBytes OR DELETE ON feedback
        FOR EACH ROW EXECUTE FUNCTION audio_artifact_bytes();
        CREATE TRIGGER comment_artifact_bytes AFTER INSERT OR UPDATE OF audioPath, audioBytes OR DELETE ON comment
        FOR EACH ROW EXECUTE FUNCTION audio_artifact_bytes();
        CREATE TRIGGER annotation_artifact_bytes AFTER INSERT OR UPDATE OF audioPath, audioBytes OR DELETE ON annotation
        FOR EACH ROW EXECUTE FUNCTION audio_artifact_bytes();
        """#
}

/// The baseline's indexes, and the running total of artifact bytes that `status` reads with
/// the triggers that keep it.
extension PostgresSchema {
    static let baselineIndexesAndTriggers = #"""
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

-- A QSO belongs to at most one contest session: linking it elsewhere is skipped, and the unique
-- index settles concurrent links. Keep the earliest session of any QSO linked twice before.
DELETE FROM contest_session_qsos later
 USING contest_session_qsos earlier
 WHERE later.qso_id = earlier.qso_id AND later.session_id > earlier.session_id;
DROP INDEX contest_session_qsos_qso;
CREATE UNIQUE INDEX contest_session_qsos_qso ON contest_session_qsos (qso_id);

-- A single-statement write declares itself inside that statement:
--   WITH qso_writer AS MATERIALIZED (SELECT qso_write_begin(…)) INSERT INTO qso … SELECT … FROM qso_writer …
-- (lib/qso/writeLock.ts). The declaration runs when the INSERT pulls its first row, before any id
-- is drawn or transaction id assigned, which is all the change feed needs (qso_write_begin still
-- refuses to run after the transaction has written). A BEFORE STATEMENT check fires before that
-- and would refuse such a statement, so the check of a forgotten declaration moves to the end of
-- the statement: a write without one is still rolled back, nothing of it commits.
DROP TRIGGER qso_require_writer ON qso;
CREATE TRIGGER qso_require_writer AFTER INSERT OR UPDATE OR DELETE ON qso
  FOR EACH STATEMENT EXECUTE FUNCTION qso_require_writer();

import t from 'tap';
import { beginSql, named, sendUnnamed, sessionSettingsSql, setUpConnection } from '../../lib/db/connectionSetup.js';
import { shapedStatement } from '../../lib/db/shapedStatement.js';

const settings = { statement_timeout: 30_000, max_parallel_workers_per_gather: 0 };

t.test('session mode: names kept, settings SET once, BEGIN carries only what a transaction lifts', async (t) => {
  const db = {};
  setUpConnection(db, { mode: 'session', settings });
  t.same(named(db, { name: 'x', text: 'SELECT 1' }), { name: 'x', text: 'SELECT 1' });
  t.equal(shapedStatement(db, 'SELECT 2', []).name?.startsWith('shape_'), true);
  t.equal(sessionSettingsSql(db), 'SET statement_timeout = 30000; SET max_parallel_workers_per_gather = 0');
  t.equal(beginSql(db), 'BEGIN');
  t.equal(beginSql(db, 'ISOLATION LEVEL REPEATABLE READ', { statement_timeout: 0 }), 'BEGIN ISOLATION LEVEL REPEATABLE READ; SET LOCAL statement_timeout = 0');
});

t.test('transaction mode: no names, no session settings, every BEGIN with SET LOCAL', async (t) => {
  const db = {};
  setUpConnection(db, { mode: 'transaction', settings });
  t.same(named(db, { name: 'x', text: 'SELECT 1' }), { text: 'SELECT 1' });
  t.equal(shapedStatement(db, 'SELECT 2', []).name, undefined);
  t.equal(sessionSettingsSql(db), '');
  t.equal(beginSql(db), 'BEGIN; SET LOCAL statement_timeout = 30000; SET LOCAL max_parallel_workers_per_gather = 0');
  t.equal(beginSql(db, 'READ ONLY', { statement_timeout: 0 }), 'BEGIN READ ONLY; SET LOCAL statement_timeout = 0; SET LOCAL max_parallel_workers_per_gather = 0');
  t.throws(() => beginSql({}, '', { 'statement_timeout; DROP TABLE qso': 1 }), /not a name and an integer/);
});

t.test('a name that slipped past named() is sent unnamed and reported once, the shared constant untouched', async (t) => {
  const sent: unknown[] = [];
  const client = { query: (config: unknown) => sent.push(config) };
  const reported: string[] = [];
  sendUnnamed(client, (name) => reported.push(name));
  const constant = { name: 'constant', text: 'SELECT 1' };
  client.query(constant);
  client.query(constant);
  client.query('SELECT 3');
  t.same(sent, [{ name: undefined, text: 'SELECT 1' }, { name: undefined, text: 'SELECT 1' }, 'SELECT 3']);
  t.same(reported, ['constant']);
  t.equal(constant.name, 'constant');
});

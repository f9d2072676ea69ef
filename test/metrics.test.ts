import t from 'tap';
import { Metrics } from '../lib/metrics.js';

t.test('series are keyed by their labels in name order, values escaped as the exposition format says', async (t) => {
  const metrics = new Metrics();
  metrics.requests.inc({ status: '200', api: 'v2', resource: 'qso', method: 'GET' });
  metrics.requests.inc({ method: 'GET', resource: 'qso', api: 'v2', status: '200' });
  metrics.requests.inc({ api: 'v2', resource: 'a "quoted"\\path\nline', method: 'GET', status: '404' });
  metrics.latency.observe({ resource: 'qso', api: 'v2' }, 0.02);
  const text = metrics.render();
  t.match(text, /^logbook_http_requests_total\{api="v2",method="GET",resource="qso",status="200"\} 2$/m, 'one series whatever the order the labels came in');
  t.match(text, /^logbook_http_requests_total\{api="v2",method="GET",resource="a \\"quoted\\"\\\\path\\nline",status="404"\} 1$/m);
  t.match(text, /^logbook_http_request_duration_seconds_bucket\{api="v2",resource="qso",le="0.01"\} 0$/m);
  t.match(text, /^logbook_http_request_duration_seconds_bucket\{api="v2",resource="qso",le="0.025"\} 1$/m);
  t.match(text, /^logbook_http_request_duration_seconds_count\{api="v2",resource="qso"\} 1$/m);
});

// A bar chart (Chart.js, only the parts a bar chart needs) beside the numbers it draws, which
// stay readable as a table for screen readers, tests and people who want the figures.
import { html } from 'htm/preact';
import { useEffect, useRef } from 'preact/hooks';
import { BarController, BarElement, CategoryScale, Chart, LinearScale, Tooltip } from 'chart.js';
import { number } from './format.js';

Chart.register(BarController, BarElement, CategoryScale, LinearScale, Tooltip);

export function BarChart({ title, rows, labelName }) {
  const canvas = useRef(null);
  useEffect(() => {
    const chart = new Chart(canvas.current, {
      type: 'bar',
      data: { labels: rows.map((r) => r.label), datasets: [{ label: 'QSOs', data: rows.map((r) => r.count), backgroundColor: '#3a6ea5' }] },
      options: { animation: false, maintainAspectRatio: false, plugins: { legend: { display: false } }, scales: { y: { beginAtZero: true, ticks: { precision: 0 } } } },
    });
    return () => chart.destroy();
  }, [rows]);
  return html`<figure class="chart">
    <figcaption>${title}</figcaption>
    <div class="canvas"><canvas ref=${canvas} role="img" aria-label=${title}></canvas></div>
    <details><summary>Numbers</summary><table aria-label=${title}>
      <thead><tr><th>${labelName}</th><th>QSOs</th></tr></thead>
      <tbody>${rows.map((r) => html`<tr><td>${r.label}</td><td class="num">${number(r.count)}</td></tr>`)}</tbody></table></details>
  </figure>`;
}

/**
 * `GET /manifest.json`, the web-app manifest the original serves. Clients read its `name` to
 * tell Wavelog from Cloudlog before choosing which API calls to make, so it carries the
 * original's name; there is no web app (and so no icons) behind it here.
 */
export const webAppManifest = Object.freeze({
  name: 'Wavelog',
  short_name: 'Wavelog',
  theme_color: '#000000',
  background_color: '#ffffff',
  display: 'standalone',
  scope: '/',
  start_url: '/',
});

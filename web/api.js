// The API page: Swagger UI (npm swagger-ui-dist, served by this server) over /openapi.json.
window.addEventListener('DOMContentLoaded', () => {
  window.SwaggerUIBundle({ url: '/openapi.json', dom_id: '#api', deepLinking: true });
});

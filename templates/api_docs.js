// Starts Swagger UI on the OpenAPI document of this server (served by /api/docs/init.js).
window.addEventListener("load", function () {
  window.ui = SwaggerUIBundle({
    url: {{ url_for("api-docs.openapi_json")|tojson }},
    dom_id: "#swagger-ui",
    deepLinking: true,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
});

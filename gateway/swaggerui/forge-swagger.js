// Starts Swagger UI on forge's OpenAPI document (the page's data-spec).
// Nothing is fetched from elsewhere: no validator badge, no remote specs.
"use strict";
window.addEventListener("load", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.spec,
    dom_id: "#swagger-ui",
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
    deepLinking: true,
    validatorUrl: null,
    // "Authorize" keeps the token for this tab only.
    persistAuthorization: false,
    displayRequestDuration: true,
    defaultModelsExpandDepth: 0,
    docExpansion: "list",
    filter: true,
  });
});

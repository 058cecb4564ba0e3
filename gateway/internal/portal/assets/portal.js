// One Swagger UI per routed service, each on the gateway's rewritten copy
// of the service's document (servers: the route prefix on this origin).
"use strict";
document.querySelectorAll("div.swagger").forEach(function (el, i) {
  el.id = "swagger-" + i;
  SwaggerUIBundle({
    url: el.dataset.spec,
    dom_id: "#" + el.id,
    deepLinking: false,       // several instances share the page's URL
    queryConfigEnabled: false,
    validatorUrl: null,       // never call validator.swagger.io
    docExpansion: "list",
    defaultModelsExpandDepth: -1,
    displayOperationId: true,
    persistAuthorization: false,
    withCredentials: false,
  });
});

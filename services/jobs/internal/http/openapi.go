package http

import _ "embed"

// OpenAPI is the OpenAPI 3 description of the service, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

package http

import _ "embed"

// OpenAPI is the OpenAPI 3 description of this service, served at /openapi.json.
//
//go:embed openapi.json
var OpenAPI []byte

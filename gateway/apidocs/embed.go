// Package apidocs embeds the OpenAPI document that buf generates from the
// protos and their routes (forge.swagger.json, never edited by hand).
package apidocs

import _ "embed"

//go:embed forge.swagger.json
var Swagger []byte

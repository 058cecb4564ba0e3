package portal

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// ClientCredentials is the name of the security scheme the portal adds to
// every document: the OAuth2 client-credentials flow at the identity
// provider's token endpoint.
const ClientCredentials = "clientCredentials"

// methods are the members of a path item that are operations.
var methods = []string{"get", "put", "post", "delete", "options", "head", "patch", "trace"}

// scopePattern finds the scopes a document names (jobs:read,
// search:services:write) in its security requirements and descriptions.
var scopePattern = regexp.MustCompile(`\b[a-z]+(?::[a-z]+)*:(?:read|write)\b`)

// rewritten is a service's document as the portal serves it.
type rewritten struct {
	doc        []byte
	title      string
	operations int
}

// rewrite makes a service's OpenAPI document one for callers of the
// gateway: its only server is the route's prefix on the gateway's own
// origin (so "try it" calls go through the gateway, same origin), and every
// requirement of a bearer token also accepts a token of the
// client-credentials flow at tokenURL, which the document now describes.
func rewrite(raw []byte, prefix, tokenURL string) (rewritten, error) {
	// The services' documents write the identity provider's root as
	// {auth_url} (the API document's placeholder); the portal knows it.
	if i := strings.Index(tokenURL, "/auth/realms/"); i > 0 {
		raw = bytes.ReplaceAll(raw, []byte("{auth_url}"), []byte(tokenURL[:i]))
	}
	var doc object
	if err := json.Unmarshal(raw, &doc); err != nil {
		return rewritten{}, fmt.Errorf("not an OpenAPI document: %w", err)
	}
	var info struct {
		Title string `json:"title"`
	}
	if v, ok := doc.get("info"); ok {
		_ = json.Unmarshal(v, &info)
	}
	if v, ok := doc.get("openapi"); !ok || !strings.HasPrefix(strings.Trim(string(v), `"`), "3.") {
		return rewritten{}, fmt.Errorf("not an OpenAPI 3 document (openapi: %s)", v)
	}
	err := doc.set("servers", []map[string]string{{
		"url":         prefix,
		"description": "this gateway, route " + prefix,
	}})
	if err != nil {
		return rewritten{}, err
	}
	bearers, err := addClientCredentials(&doc, raw, tokenURL)
	if err != nil {
		return rewritten{}, err
	}
	if v, ok := doc.get("security"); ok {
		if err := doc.set("security", alsoClientCredentials(v, bearers)); err != nil {
			return rewritten{}, err
		}
	}
	ops, err := rewriteOperations(&doc, bearers)
	if err != nil {
		return rewritten{}, err
	}
	out, err := json.Marshal(doc)
	return rewritten{doc: out, title: info.Title, operations: ops}, err
}

// addClientCredentials declares the client-credentials scheme with every
// scope the document names and returns the names of its bearer schemes.
func addClientCredentials(doc *object, raw []byte, tokenURL string) ([]string, error) {
	var comps object
	if v, ok := doc.get("components"); ok {
		if err := json.Unmarshal(v, &comps); err != nil {
			return nil, fmt.Errorf("components: %w", err)
		}
	}
	schemes := map[string]json.RawMessage{}
	if v, ok := comps.get("securitySchemes"); ok {
		if err := json.Unmarshal(v, &schemes); err != nil {
			return nil, fmt.Errorf("securitySchemes: %w", err)
		}
	}
	var bearers []string
	for name, s := range schemes {
		var scheme struct{ Type, Scheme string }
		if json.Unmarshal(s, &scheme) == nil && scheme.Type == "http" && strings.EqualFold(scheme.Scheme, "bearer") {
			bearers = append(bearers, name)
		}
	}
	slices.Sort(bearers)
	scopes := map[string]string{}
	for _, s := range scopePattern.FindAllString(string(raw), -1) {
		scopes[s] = "scope " + s
	}
	flow := map[string]any{
		"type": "oauth2",
		"description": "An access token of the OpenID Connect provider by the client-credentials grant: " +
			"POST " + tokenURL + " with grant_type=client_credentials, client_id and client_secret " +
			"(form-encoded), then paste its access_token into the bearer field. The token's scopes " +
			"decide what it may call; the gateway and the service both verify it.",
		"flows": map[string]any{"clientCredentials": map[string]any{"tokenUrl": tokenURL, "scopes": scopes}},
	}
	b, err := json.Marshal(flow)
	if err != nil {
		return nil, err
	}
	schemes[ClientCredentials] = b
	if err := comps.set("securitySchemes", schemes); err != nil {
		return nil, err
	}
	return bearers, doc.set("components", comps)
}

// alsoClientCredentials adds, after each requirement of a bearer token, the
// same requirement met by a client-credentials token (the scopes kept).
func alsoClientCredentials(security json.RawMessage, bearers []string) []map[string][]string {
	var reqs []map[string][]string
	if json.Unmarshal(security, &reqs) != nil {
		return nil
	}
	out := make([]map[string][]string, 0, 2*len(reqs))
	for _, req := range reqs {
		out = append(out, req)
		for _, b := range bearers {
			if scopes, ok := req[b]; ok {
				out = append(out, map[string][]string{ClientCredentials: scopes})
				break
			}
		}
	}
	return out
}

// rewriteOperations applies alsoClientCredentials to the operations that
// state their own security, keeping the order of paths and operations,
// and counts the operations.
func rewriteOperations(doc *object, bearers []string) (int, error) {
	v, ok := doc.get("paths")
	if !ok {
		return 0, nil
	}
	var paths object
	if err := json.Unmarshal(v, &paths); err != nil {
		return 0, fmt.Errorf("paths: %w", err)
	}
	n := 0
	for i, p := range paths {
		var item object
		if err := json.Unmarshal(p.Value, &item); err != nil {
			return 0, fmt.Errorf("path %s: %w", p.Key, err)
		}
		for j, m := range item {
			if !slices.Contains(methods, m.Key) {
				continue
			}
			n++
			var op object
			if err := json.Unmarshal(m.Value, &op); err != nil {
				return 0, fmt.Errorf("%s %s: %w", m.Key, p.Key, err)
			}
			sec, ok := op.get("security")
			if !ok {
				continue
			}
			if err := op.set("security", alsoClientCredentials(sec, bearers)); err != nil {
				return 0, err
			}
			b, err := json.Marshal(op)
			if err != nil {
				return 0, err
			}
			item[j].Value = b
		}
		var err error
		if paths[i].Value, err = json.Marshal(item); err != nil {
			return 0, err
		}
	}
	return n, doc.set("paths", paths)
}

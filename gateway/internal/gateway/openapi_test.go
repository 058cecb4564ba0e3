package gateway_test

import (
	"encoding/json"
	"maps"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// serviceDocs are the OpenAPI documents of the services behind the gateway,
// relative to the repository root.
var serviceDocs = []string{
	"services/search-admin/internal/http/openapi.json",
	"services/jobs/internal/http/openapi.json",
}

// gatewayHeaders returns the names of the headers the gateway adds to resp:
// the rate-limit family, and Retry-After when withRetry.
func gatewayHeaders(resp *http.Response, withRetry bool) []string {
	var names []string
	for name := range resp.Header {
		if strings.Contains(strings.ToLower(name), "ratelimit") || withRetry && name == "Retry-After" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	return names
}

// docNode follows a local $ref of an OpenAPI document read as plain JSON.
func docNode(root, node map[string]any) map[string]any {
	for {
		ref, ok := node["$ref"].(string)
		if !ok {
			return node
		}
		var cur any = root
		for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
			m, _ := cur.(map[string]any)
			cur = m[part]
		}
		node, _ = cur.(map[string]any)
	}
}

// declaredHeaders returns the canonical names of the rate-limit headers a
// response of the document declares (Retry-After too when withRetry), and
// whether Retry-After is required.
func declaredHeaders(root, resp map[string]any, withRetry bool) (names []string, retryRequired bool) {
	headers, _ := docNode(root, resp)["headers"].(map[string]any)
	for name, h := range headers {
		canonical := http.CanonicalHeaderKey(name)
		if canonical == "Retry-After" {
			retryRequired, _ = docNode(root, h.(map[string]any))["required"].(bool)
		}
		if strings.Contains(strings.ToLower(name), "ratelimit") || withRetry && canonical == "Retry-After" {
			names = append(names, canonical)
		}
	}
	slices.Sort(names)
	return names, retryRequired
}

// TestServiceDocumentsDeclareWhatTheGatewayAdds reads the headers a real
// gateway adds to an admitted and to a refused request, and checks that every
// operation of both service documents declares them on every response, and
// declares the 429 with its Retry-After.
func TestServiceDocumentsDeclareWhatTheGatewayAdds(t *testing.T) {
	t.Parallel()
	h := start(t, withEnv("RATE_LIMIT_PER_CLIENT", "1-M"))
	token := h.idp.Token(t, "catalog-admin")
	admitted, body := h.get(t, "/search/api/v1/admin/migration/schemas", token)
	if admitted.StatusCode != http.StatusOK {
		t.Fatalf("first request: status %d; body %s", admitted.StatusCode, body)
	}
	refused, body := h.get(t, "/search/api/v1/admin/migration/schemas", token)
	if refused.StatusCode != http.StatusTooManyRequests {
		t.Fatalf("second request: status %d, want 429; body %s", refused.StatusCode, body)
	}
	onEvery, on429 := gatewayHeaders(admitted, false), gatewayHeaders(refused, true)
	if len(onEvery) == 0 || !slices.Contains(on429, "Retry-After") {
		t.Fatalf("the gateway sent %v and, with its 429, %v", onEvery, on429)
	}

	for _, rel := range serviceDocs {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", filepath.FromSlash(rel)))
		if err != nil {
			t.Fatal(err)
		}
		var root map[string]any
		if err := json.Unmarshal(data, &root); err != nil {
			t.Fatalf("%s: %v", rel, err)
		}
		t.Run(filepath.Base(filepath.Dir(filepath.Dir(filepath.Dir(rel))))+" declares them", func(t *testing.T) {
			paths, _ := root["paths"].(map[string]any)
			operations := 0
			for _, path := range slices.Sorted(maps.Keys(paths)) {
				item := paths[path].(map[string]any)
				for _, method := range slices.Sorted(maps.Keys(item)) {
					op, ok := item[method].(map[string]any)
					if !ok || method == "parameters" {
						continue
					}
					operations++
					responses, _ := op["responses"].(map[string]any)
					tooMany, ok := responses["429"].(map[string]any)
					if !ok {
						t.Errorf("%s %s declares no 429", method, path)
					} else if got, required := declaredHeaders(root, tooMany, true); !slices.Equal(got, on429) || !required {
						t.Errorf("%s %s: its 429 declares %v (Retry-After required: %t), the gateway sends %v", method, path, got, required, on429)
					}
					for _, code := range slices.Sorted(maps.Keys(responses)) {
						if got, _ := declaredHeaders(root, responses[code].(map[string]any), false); !slices.Equal(got, onEvery) {
							t.Errorf("%s %s: its %s declares %v, the gateway sends %v", method, path, code, got, onEvery)
						}
					}
				}
			}
			if operations == 0 {
				t.Fatal("the document has no operations")
			}
		})
	}
}

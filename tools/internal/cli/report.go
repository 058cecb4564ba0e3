package cli

import (
	"errors"
	"fmt"
	"io"
	"net/http"

	"github.com/municipal-apis/platform/pkg/client"
)

// writeError reports err on w; an API error lists its field violations and
// request id, and hints at the fix for the statuses a user can act on.
func writeError(w io.Writer, err error) {
	var e *client.Error
	if !errors.As(err, &e) {
		fmt.Fprintf(w, "error: %s\n", clean(err.Error(), 0))
		return
	}
	fmt.Fprintf(w, "error: %s %s: %d %s\n", e.Method, clean(e.Path, 0), e.Status, clean(e.Title, 0))
	if e.Detail != "" {
		fmt.Fprintf(w, "  %s\n", clean(e.Detail, 0))
	}
	for _, f := range e.Errors {
		fmt.Fprintf(w, "  - %s: %s (%s)\n", clean(f.Field, 0), clean(f.Message, 0), clean(f.Code, 0))
	}
	if hint := hints[e.Status]; hint != "" {
		fmt.Fprintf(w, "  hint: %s\n", hint)
	}
	if e.RequestID != "" {
		fmt.Fprintf(w, "  request_id: %s\n", clean(e.RequestID, 0))
	}
}

// hints suggest what to do about a failed request.
var hints = map[int]string{
	http.StatusUnauthorized:    "check the client credentials and the --env or --auth-url they belong to",
	http.StatusForbidden:       "the client lacks the scope this operation needs; ask the API operator to grant it",
	http.StatusTooManyRequests: "the rate limit held through every retry; wait, or raise --max-attempts",
}

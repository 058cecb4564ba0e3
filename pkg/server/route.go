package server

import (
	"context"
	"net/http"
)

// unmatchedRoute labels requests no route matched, keeping metric
// cardinality bounded whatever paths clients send.
const unmatchedRoute = "unmatched"

type routeKey struct{}

type routeInfo struct{ route string }

// SetRoute records the route template (e.g. "/api/v1/empregos/:id") that
// served r, for logs and metrics. Handlers below Metrics or AccessLog call it.
func SetRoute(r *http.Request, route string) {
	if info, ok := r.Context().Value(routeKey{}).(*routeInfo); ok && route != "" {
		info.route = route
	}
}

func withRoute(ctx context.Context) (context.Context, *routeInfo) {
	if info, ok := ctx.Value(routeKey{}).(*routeInfo); ok {
		return ctx, info
	}
	info := &routeInfo{route: unmatchedRoute}
	return context.WithValue(ctx, routeKey{}, info), info
}

// withContext is r with ctx, and r itself when ctx is already its context:
// r.WithContext copies the whole request every time.
func withContext(r *http.Request, ctx context.Context) *http.Request {
	if ctx == r.Context() {
		return r
	}
	return r.WithContext(ctx)
}

package e2e_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"

	"github.com/municipal-apis/platform/pkg/stack"
)

// chromiumEnv names the browser binary when it is not chromium on PATH.
const chromiumEnv = "CHROMIUM"

// screenshotEnv, when set, is the folder where the portal test saves its
// screenshots: portal.png (the page as it opens) and portal-try.png (a call
// tried from it). docs/ holds the ones the READMEs show:
//
//	PORTAL_SCREENSHOTS=$PWD/../docs go test -run TestThePortal ./e2e
const screenshotEnv = "PORTAL_SCREENSHOTS"

// screenshot saves the visible part of the page as name in the folder of
// screenshotEnv, if set.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	dir := os.Getenv(screenshotEnv)
	if dir == "" {
		return
	}
	png, err := chromedp.Run(ctx, chromedp.CaptureScreenshot())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), png, 0o644); err != nil {
		t.Fatal(err)
	}
}

// chromium returns the headless browser's path, failing t when there is none:
// scripts/deps.sh --browser (run by make test) installs Debian's chromium.
func chromium(t *testing.T) string {
	t.Helper()
	if p := os.Getenv(chromiumEnv); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Fatalf("no chromium on PATH (nor %s): run scripts/deps.sh --browser, or apt-get install chromium", chromiumEnv)
	return ""
}

// browser starts a headless Chromium of its own (a fresh profile, nothing
// fetched in the background) and returns a tab's context and the errors
// the page logs: console errors, uncaught exceptions and the browser's own
// error entries (failed loads, Content-Security-Policy refusals).
func browser(t *testing.T) (context.Context, func() []string) {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.UserDataDir(t.TempDir()),
		chromedp.Headless, chromedp.DisableGPU, chromedp.NoFirstRun, chromedp.NoDefaultBrowserCheck,
		chromedp.NoSandbox,
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		chromedp.WindowSize(1280, 900),
	}
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(actx)
	ctx, cancelTime := context.WithTimeout(ctx, 3*time.Minute)
	var mu sync.Mutex
	var errs []string
	messages := chromedp.Console(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for m, err := range messages {
			if err != nil {
				if ctx.Err() == nil {
					mu.Lock()
					errs = append(errs, "console: "+err.Error())
					mu.Unlock()
				}
				return
			}
			if m.Type == chromedp.ConsoleError || m.Type == "assert" || m.IsException() {
				mu.Lock()
				errs = append(errs, fmt.Sprintf("%s (%s:%d)", m, m.URL, m.Line))
				mu.Unlock()
			}
		}
	}()
	t.Cleanup(func() { cancelTime(); cancelTab(); cancelAlloc(); <-done })
	return ctx, func() []string { mu.Lock(); defer mu.Unlock(); return slices.Clone(errs) }
}

// documentOperations returns "METHOD path" of every operation of the
// OpenAPI document a service serves at /openapi.json.
func documentOperations(t *testing.T, serviceURL string) []string {
	t.Helper()
	resp, err := http.Get(serviceURL + "/openapi.json")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&doc); err != nil {
		t.Fatal(err)
	}
	var ops []string
	for p, item := range doc.Paths {
		for m := range item {
			if slices.Contains([]string{"get", "put", "post", "delete", "patch", "head", "options", "trace"}, m) {
				ops = append(ops, strings.ToUpper(m)+" "+p)
			}
		}
	}
	slices.Sort(ops)
	return ops
}

// renderedOperations lists, per route prefix, "METHOD path" of every
// operation Swagger UI rendered in that API's section.
const renderedOperations = `(() => {
  const out = {};
  document.querySelectorAll("section.api").forEach(sec => {
    out[sec.dataset.prefix] = [...sec.querySelectorAll(".opblock")].map(op =>
      op.querySelector(".opblock-summary-method").textContent.trim() + " " +
      op.querySelector(".opblock-summary-path").dataset.path);
  });
  return out;
})()`

func TestThePortalRendersBothAPIsAndTriesACallThroughTheGateway(t *testing.T) {
	t.Parallel()
	s := shared.Get(t)
	want := map[string][]string{
		"/search": documentOperations(t, s.SearchAdminURL),
		"/go/v1":  documentOperations(t, s.JobsURL),
	}
	total := len(want["/search"]) + len(want["/go/v1"])
	ctx, consoleErrors := browser(t)

	// Every operation of both documents, and nothing else, once Swagger UI
	// has rendered the two sections.
	err := chromedp.Do(ctx,
		chromedp.Navigate(s.GatewayURL+"/docs/"),
		chromedp.Steps(chromedp.Func(func(ctx context.Context, _ *chromedp.Target) error {
			_, err := chromedp.Run(ctx, chromedp.Poll[bool](fmt.Sprintf(`document.querySelectorAll("section.api .opblock").length >= %d`, total),
				chromedp.WithPollingTimeout(time.Minute)))
			return err
		})),
	)
	var got map[string][]string
	if err == nil {
		got, err = chromedp.Run(ctx, chromedp.Evaluate[map[string][]string](renderedOperations))
	}
	if err != nil {
		t.Fatalf("render /docs/: %v\nbrowser errors: %v", err, consoleErrors())
	}
	for prefix, ops := range want {
		rendered := slices.Sorted(slices.Values(got[prefix]))
		if !slices.Equal(rendered, ops) {
			t.Errorf("section %s renders\n%v\nwant the %d operations of the service's document\n%v", prefix, rendered, len(ops), ops)
		}
	}

	screenshot(t, ctx, "portal.png")

	// "Try it": a token of the development identity provider pasted into
	// the jobs section's Authorize dialog, then GET /api/v1/escolaridades
	// executed from the page, through the gateway.
	token, err := s.Token(ctx, stack.Reader)
	if err != nil {
		t.Fatal(err)
	}
	const jobs = `section.api[data-prefix="/go/v1"] `
	const op = jobs + `.opblock-get:has(.opblock-summary-path[data-path="/api/v1/escolaridades"]) `
	steps := []struct {
		what string
		do   chromedp.Action[chromedp.Void]
	}{
		{"open the Authorize dialog", chromedp.Click(chromedp.CSS(jobs + `.scheme-container .btn.authorize`))},
		{"paste the token", paste(chromedp.CSS(jobs+`.modal-ux .auth-container input`), token)},
		{"authorize", chromedp.Click(chromedp.CSS(jobs + `.modal-ux .auth-container .modal-btn.authorize`))},
		{"see it authorized", chromedp.WaitVisible(chromedp.CSS(jobs + `.modal-ux .auth-container button[aria-label="Remove authorization"]`))},
		{"close the dialog", chromedp.Click(chromedp.CSS(jobs + `.modal-ux .close-modal`))},
		{"see the dialog closed", chromedp.WaitNotPresent(chromedp.CSS(jobs + `.modal-ux`))},
		{"open the operation", chromedp.Click(chromedp.CSS(op + `.opblock-summary-control`))},
		{"try it out", chromedp.Click(chromedp.CSS(op + `.try-out__btn`))},
		{"execute", chromedp.Click(chromedp.CSS(op + `.execute`))},
		{"see the answer", chromedp.WaitVisible(chromedp.CSS(op + `.live-responses-table tbody .response-col_status`))},
		{"scroll to it", chromedp.ScrollIntoView(chromedp.CSS(op))},
	}
	for _, step := range steps {
		sctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := chromedp.Do(sctx, step.do)
		cancel()
		if err != nil {
			html, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`(document.querySelector('section.api[data-prefix="/go/v1"] .modal-ux') || document.querySelector('section.api[data-prefix="/go/v1"] .opblock-get')).outerHTML`))
			if len(html) > 6000 {
				html = html[:6000]
			}
			t.Fatalf("try GET /api/v1/escolaridades from the page: %s: %v\nbrowser errors: %v\nsection: %s", step.what, err, consoleErrors(), html)
		}
	}
	status, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(op+`.live-responses-table tbody .response-col_status`)))
	if err != nil {
		t.Fatal(err)
	}
	requestURL, err := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(op+`.request-url pre`)))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(strings.TrimSpace(status), "200") {
		t.Errorf("the call from the page answered %q, want 200", status)
	}
	if wantURL := s.GatewayURL + "/go/v1/api/v1/escolaridades"; !strings.HasPrefix(strings.TrimSpace(requestURL), wantURL) {
		t.Errorf("the page called %q, want the gateway's %s", requestURL, wantURL)
	}
	screenshot(t, ctx, "portal-try.png")
	if errs := consoleErrors(); len(errs) > 0 {
		t.Errorf("the page logged %d errors:\n%s", len(errs), strings.Join(errs, "\n"))
	}
}

// paste puts text into the input sel as one insertion, as a paste or an
// input method does: the page sees an input event with the whole text.
// Typing a token of a thousand characters key by key (SendKeys) is three
// thousand round trips to the browser, seven seconds on an idle machine and
// over half a minute on a busy one.
func paste(sel chromedp.CSS, text string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(
		chromedp.Focus(sel, chromedp.NodeVisible),
		chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
			_, err := cdp.Call(ctx, t, input.InsertText, input.InsertTextParams{Text: text})
			return err
		}),
	)
}

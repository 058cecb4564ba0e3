package app_test

import (
	"context"
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/sethvargo/go-envconfig"

	"github.com/municipal-apis/platform/gateway/internal/app"
	"github.com/municipal-apis/platform/pkg/logtest"
	"github.com/municipal-apis/platform/pkg/program/programtest"
)

func TestADMIN_ADDRIsDefaultedOnlyWhenUnset(t *testing.T) {
	t.Parallel()
	for env, want := range map[string]bool{"": true, "127.0.0.1:9999": false} {
		vars := map[string]string{}
		if env != "" {
			vars["ADMIN_ADDR"] = env
		}
		cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(vars))
		if err != nil {
			t.Fatal(err)
		}
		if cfg.Admin.Defaulted != want {
			t.Errorf("ADMIN_ADDR=%q: Defaulted = %v, want %v", env, cfg.Admin.Defaulted, want)
		}
	}
}

// Two gateways on one host without ADMIN_ADDR (a benchmark, a developer's
// second instance) both start: the second serves its probes and metrics on
// a free port and says so in its log.
func TestABusyDefaultAdminAddressMovesToAFreePort(t *testing.T) {
	t.Parallel()
	busy := programtest.BusyAddr(t)
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR": "127.0.0.1:0", "RATE_LIMIT_ENABLED": "false",
	}))
	if err != nil {
		t.Fatal(err)
	}
	cfg.Admin.Addr = busy // the default, as if it were ":9090" and taken
	var logs logtest.Buffer
	cfg.Logger = slog.New(slog.NewJSONHandler(&logs, nil))
	a, err := app.New(context.Background(), cfg)
	if err != nil {
		t.Fatalf("New with a busy default admin address: %v", err)
	}
	stop := programtest.RunInBackground(t, a, 30*time.Second)
	defer func() {
		stop()
		_ = a.Close()
	}()
	if a.AdminAddr() == busy || !strings.HasPrefix(a.AdminAddr(), "127.0.0.1:") {
		t.Fatalf("admin listens on %s, want a free port of 127.0.0.1 other than %s", a.AdminAddr(), busy)
	}
	var resp *http.Response
	for range 50 {
		if resp, err = http.Get("http://" + a.AdminAddr() + "/livez"); err == nil {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /livez on the admin port = %d", resp.StatusCode)
	}
	if log := logs.String(); !strings.Contains(log, `"admin_addr":"`+a.AdminAddr()+`"`) || !strings.Contains(log, "ADMIN_ADDR is not set") {
		t.Errorf("the log does not name the admin port it moved to:\n%s", log)
	}
}

func TestABusyExplicitAdminAddressStopsTheStart(t *testing.T) {
	t.Parallel()
	busy := programtest.BusyAddr(t)
	cfg, err := app.LoadConfig(context.Background(), envconfig.MapLookuper(map[string]string{
		"HTTP_ADDR": "127.0.0.1:0", "ADMIN_ADDR": busy, "RATE_LIMIT_ENABLED": "false", "LOG_LEVEL": "error",
	}))
	if err != nil {
		t.Fatal(err)
	}
	a, err := app.New(context.Background(), cfg)
	if err == nil {
		_ = a.Close()
		t.Fatalf("New started with ADMIN_ADDR=%s taken; its admin port is %s", busy, a.AdminAddr())
	}
	if !strings.Contains(err.Error(), busy) {
		t.Errorf("error %q does not name %s", err, busy)
	}
}

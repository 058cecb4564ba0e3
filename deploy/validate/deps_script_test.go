package validate

import (
	"bytes"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/program/programtest"
)

// depsMachine is a pretend machine for scripts/deps.sh: a PATH holding only
// the basic tools the script needs and the fakes a test chooses, so that the
// script sees what is installed there, not what this machine has.
type depsMachine struct {
	t   *testing.T
	bin string
	env []string
}

// basicTools are the commands scripts/deps.sh uses that are not what it sets up.
var basicTools = []string{"bash", "timeout", "awk", "sed", "seq", "sleep", "cat", "dirname"}

func newDepsMachine(t *testing.T, uid int) *depsMachine {
	t.Helper()
	m := &depsMachine{t: t, bin: t.TempDir()}
	for _, tool := range basicTools {
		path, err := exec.LookPath(tool)
		if err != nil {
			t.Fatalf("%s: %v", tool, err)
		}
		if err := os.Symlink(path, filepath.Join(m.bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	m.fake("id", fmt.Sprintf("echo %d", uid))
	m.env = []string{"PATH=" + m.bin, "HOME=" + t.TempDir(), "DEPS_WAIT=10"}
	return m
}

// fake installs a command whose body is the bash script body.
func (m *depsMachine) fake(name, body string) {
	m.t.Helper()
	bash, err := exec.LookPath("bash")
	if err != nil {
		m.t.Fatal(err)
	}
	script := "#!" + bash + "\n" + body + "\n"
	path := filepath.Join(m.bin, name)
	// A fake replaces a basic tool's link; writing through the link would
	// overwrite the machine's own command.
	if err := os.Remove(path); err != nil && !errors.Is(err, os.ErrNotExist) {
		m.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(script), 0o755); err != nil {
		m.t.Fatal(err)
	}
}

// real makes the machine's own command name available.
func (m *depsMachine) real(name string) {
	m.t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		m.t.Fatalf("%s is needed: %v", name, err)
	}
	if err := os.Symlink(path, filepath.Join(m.bin, name)); err != nil {
		m.t.Fatal(err)
	}
}

// run runs scripts/deps.sh with args and returns its exit code and output.
func (m *depsMachine) run(pgAddr, redisAddr string, args ...string) (int, string) {
	m.t.Helper()
	cmd := exec.Command(filepath.Join(repoRoot(m.t), "scripts", "deps.sh"), args...)
	cmd.Env = append(m.env, "PGHOST_ADDR="+pgAddr, "REDIS_ADDR="+redisAddr)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	err := cmd.Run()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0, out.String()
	case errors.As(err, &exit):
		return exit.ExitCode(), out.String()
	}
	m.t.Fatalf("run scripts/deps.sh: %v", err)
	return 0, ""
}

func port(addr string) string { return addr[strings.LastIndex(addr, ":")+1:] }

func TestDepsScriptChoosesTheFirstStepThatApplies(t *testing.T) {
	t.Parallel()
	const compose = "would run: docker compose -f docker-compose.yml -f deploy/compose/deps.yml up -d "
	dockerEngine := `case "$1" in info) exit 0;; compose) [ "$2" = version ] && exit 0;; esac; exit 1`
	tests := []struct {
		name    string
		uid     int
		fakes   map[string]string
		up      bool // whether both servers answer
		code    int
		browser bool // --browser too
		want    []string
		notWant []string
	}{
		{
			name: "both answer: nothing is run", uid: 1000, up: true,
			fakes:   map[string]string{"apt-get": "exit 1", "docker": dockerEngine},
			want:    []string{"PostgreSQL answers at", "Redis answers at"},
			notWant: []string{"would run"},
		},
		{
			name: "installed and stopped: they are started",
			uid:  0,
			fakes: map[string]string{
				"pg_lsclusters": `echo "16 main $FAKE_PG_PORT down postgres /var/lib/postgresql/16/main log"`,
				"pg_ctlcluster": "exit 0", "redis-server": "exit 0", "apt-get": "exit 1", "docker": dockerEngine,
			},
			want:    []string{"would run: pg_ctlcluster --skip-systemctl-redirect 16 main start", "would run: redis-server --daemonize yes --bind 127.0.0.1 --port"},
			notWant: []string{"apt-get", "docker compose"},
		},
		{
			name:    "missing, as root: installed with apt-get",
			uid:     0,
			fakes:   map[string]string{"apt-get": "exit 0", "docker": dockerEngine},
			want:    []string{"would run: apt-get update -qq", "would run: env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql postgresql-contrib", "apt-get install -y -qq --no-install-recommends redis-server", "would start PostgreSQL once installed"},
			notWant: []string{"docker compose"},
		},
		{
			name: "no Chromium, as root: a dry run says it would install it, not that it did", uid: 0, up: true, browser: true,
			fakes:   map[string]string{"apt-get": "exit 0"},
			want:    []string{"would run: env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium fonts-liberation libgl1-mesa-dri", "Chromium would be installed"},
			notWant: []string{"Chromium installed"},
		},
		{
			name:    "missing, with sudo that needs no password: installed through sudo",
			uid:     1000,
			fakes:   map[string]string{"apt-get": "exit 0", "sudo": `[ "$1" = -n ] && shift; "$@"`},
			want:    []string{"would run: sudo apt-get update -qq", "would run: sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends redis-server"},
			notWant: []string{"docker compose"},
		},
		{
			name:    "missing, sudo asks for a password, a Docker engine answers: compose starts them",
			uid:     1000,
			fakes:   map[string]string{"apt-get": "exit 0", "sudo": `[ "$1" = -n ] && exit 1; "$@"`, "docker": dockerEngine},
			want:    []string{compose + "postgres", compose + "redis"},
			notWant: []string{"apt-get update"},
		},
		{
			name:  "missing, no privileges, no Docker engine: it says what to do and fails",
			uid:   1000,
			fakes: map[string]string{"apt-get": "exit 0", "docker": "exit 1"},
			code:  1,
			want: []string{"PostgreSQL does not answer at", "sudo apt-get install postgresql postgresql-contrib",
				"sudo apt-get install redis-server", "up -d redis"},
			notWant: []string{"would run"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newDepsMachine(t, tt.uid)
			for name, body := range tt.fakes {
				m.fake(name, body)
			}
			pg, redis := programtest.ClosedAddr(t), programtest.ClosedAddr(t)
			if tt.up {
				pg, redis = programtest.BusyAddr(t), programtest.BusyAddr(t)
			}
			m.env = append(m.env, "FAKE_PG_PORT="+port(pg))
			args := []string{"--dry-run"}
			if tt.browser {
				args = append(args, "--browser")
			}
			code, out := m.run(pg, redis, args...)
			if code != tt.code {
				t.Errorf("exit code %d, want %d", code, tt.code)
			}
			for _, w := range tt.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q", w)
				}
			}
			for _, w := range tt.notWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q", w)
				}
			}
			if t.Failed() {
				t.Logf("output:\n%s", out)
			}
		})
	}
}

func TestDepsScriptOnlyChecksAnAddressOfAnotherMachine(t *testing.T) {
	t.Parallel()
	m := newDepsMachine(t, 0)
	m.fake("apt-get", "exit 0")
	code, out := m.run("192.0.2.1:5432", programtest.BusyAddr(t), "--dry-run")
	if code != 1 || !strings.Contains(out, "which is not on this machine") || strings.Contains(out, "would run") {
		t.Errorf("exit code %d, output:\n%s", code, out)
	}
}

func TestDepsScriptReadsTheAddressesOfTheTestsURLs(t *testing.T) {
	t.Parallel()
	m := newDepsMachine(t, 1000)
	pg, redis := programtest.BusyAddr(t), programtest.BusyAddr(t)
	cmd := exec.Command(filepath.Join(repoRoot(t), "scripts", "deps.sh"), "--dry-run")
	cmd.Env = append(m.env, "PGTEST_ADMIN_URL=postgres://postgres@"+pg+"/postgres?sslmode=disable", "REDISTEST_URL=redis://"+redis+"/0")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "PostgreSQL answers at "+pg) || !strings.Contains(string(out), "Redis answers at "+redis) {
		t.Errorf("err %v, output:\n%s", err, out)
	}
}

// TestDepsScriptSetsTrustOnlyWhenPostgresAsksForAPassword runs the script
// for real against a pretend Postgres that answers TCP but whose psql check
// fails: only a password question may lead to editing pg_hba.conf and
// reloading the cluster; any other failure (too many clients) leaves the
// server alone.
func TestDepsScriptSetsTrustOnlyWhenPostgresAsksForAPassword(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, psqlError string
		changes         bool
	}{
		{"a server out of connections is left alone", "psql: error: FATAL:  sorry, too many clients already", false},
		{"a server asking for a password gets trust on loopback", "psql: error: fe_sendauth: no password supplied", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			m := newDepsMachine(t, 0)
			calls := filepath.Join(t.TempDir(), "calls")
			pg := programtest.BusyAddr(t)
			m.fake("psql", fmt.Sprintf("echo %q >&2; exit 2", tt.psqlError))
			m.fake("pg_lsclusters", fmt.Sprintf("echo '16 main %s online postgres /var/lib/postgresql/16/main log'", port(pg)))
			m.fake("pg_ctlcluster", fmt.Sprintf(`echo "pg_ctlcluster $*" >> %q`, calls))
			m.fake("sed", fmt.Sprintf(`echo "sed $*" >> %q`, calls))
			_, out := m.run(pg, programtest.BusyAddr(t))
			recorded, _ := os.ReadFile(calls)
			if tt.changes != strings.Contains(string(recorded), "pg_ctlcluster --skip-systemctl-redirect 16 main reload") ||
				tt.changes != strings.Contains(string(recorded), "/etc/postgresql/16/main/pg_hba.conf") {
				t.Errorf("commands run: %q\noutput:\n%s", recorded, out)
			}
		})
	}
}

// TestDepsScriptStartsAStoppedRedis runs the script for real on a spare port
// with the machine's redis-server: it must start one there, and stops it
// when the test ends. The shared servers are never touched.
func TestDepsScriptStartsAStoppedRedis(t *testing.T) {
	t.Parallel()
	m := newDepsMachine(t, 1000)
	m.real("redis-server")
	addr := programtest.ClosedAddr(t)
	t.Cleanup(func() {
		if conn, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
			fmt.Fprint(conn, "SHUTDOWN NOSAVE\r\n")
			conn.Close()
		}
	})
	code, out := m.run(programtest.BusyAddr(t), addr)
	if code != 0 || !strings.Contains(out, "running: redis-server --daemonize yes") {
		t.Fatalf("exit code %d, output:\n%s", code, out)
	}
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("nothing answers at %s after the script: %v", addr, err)
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(5 * time.Second))
	fmt.Fprint(conn, "PING\r\n")
	reply := make([]byte, 7)
	if n, _ := conn.Read(reply); string(reply[:n]) != "+PONG\r\n" {
		t.Errorf("PING answered %q, want +PONG", reply[:n])
	}
}

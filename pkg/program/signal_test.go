package program_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/municipal-apis/platform/pkg/program"
)

// lingerEnv makes the test binary run lingering under program.MainCode
// instead of the tests: a command whose clean-up, once interrupted, takes a
// minute.
const lingerEnv = "PROGRAM_TEST_LINGER"

func TestMain(m *testing.M) {
	if os.Getenv(lingerEnv) != "" {
		program.MainCode(lingering)
	}
	os.Exit(m.Run())
}

func lingering(ctx context.Context, _ []string) int {
	fmt.Println("running")
	<-ctx.Done()
	fmt.Println("interrupted")
	time.Sleep(time.Minute)
	return 0
}

func TestASecondInterruptEndsTheProgramAtOnce(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), lingerEnv+"=1")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	lines := bufio.NewScanner(out)
	expect := func(want string) {
		t.Helper()
		if !lines.Scan() || lines.Text() != want {
			t.Fatalf("the program printed %q, want %q", lines.Text(), want)
		}
	}
	expect("running")
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	expect("interrupted")
	go func() { exited <- cmd.Wait() }()
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		var exit *exec.ExitError
		if !errors.As(err, &exit) || exit.Sys().(syscall.WaitStatus).Signal() != syscall.SIGINT {
			t.Errorf("the program ended with %v, want killed by the second SIGINT", err)
		}
	case <-time.After(10 * time.Second):
		_ = cmd.Process.Kill()
		<-exited
		t.Error("the second Ctrl-C did not end the program: it waited for its clean-up")
	}
}

package stack

import (
	"os/exec"
	"syscall"
)

// setProcessAttributes makes the kernel send SIGTERM to the program when
// the process that started it dies, so a test binary killed by its timeout
// leaves no programs behind. The program gets a process group of its own,
// so the Ctrl-C of a terminal reaches only the stack, which then stops the
// programs in order, the gateway first.
func setProcessAttributes(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM, Setpgid: true}
}

package benchreport

import (
	"bufio"
	"os"
	"runtime"
	"strings"
)

// Machine describes where the benchmarks ran.
type Machine struct {
	CPUs      int
	CPUModel  string
	GoVersion string
	Platform  string
	// LoadStart and LoadEnd are the 1-, 5- and 15-minute load averages
	// when the run started and ended.
	LoadStart, LoadEnd string
}

// ReadMachine describes this machine, with its load average now as LoadStart.
func ReadMachine() Machine {
	return Machine{
		CPUs:      runtime.NumCPU(),
		CPUModel:  cpuModel(),
		GoVersion: runtime.Version(),
		Platform:  runtime.GOOS + "/" + runtime.GOARCH,
		LoadStart: LoadAverage(),
	}
}

// LoadAverage returns the three load averages of /proc/loadavg, or
// "unknown" where there is none.
func LoadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	fields := strings.Fields(string(b))
	if len(fields) < 3 {
		return "unknown"
	}
	return strings.Join(fields[:3], " ")
}

// cpuModel returns the first "model name" of /proc/cpuinfo, or "unknown".
func cpuModel() string {
	f, err := os.Open("/proc/cpuinfo")
	if err != nil {
		return "unknown"
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(k) == "model name" {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}

package bench

import (
	"context"
	"errors"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"strings"
	"time"
)

// Config is one benchmark run.
type Config struct {
	Duration time.Duration // of each measured phase
	Warmup   time.Duration // unmeasured load before each target
	Workers  int           // concurrent connections at full speed
	Rate     int           // requests per second of the latency phase
	RedisURL string
	MaxLoad  float64 // refuse to start when the 1-minute load average is higher
}

// Report is the outcome of a run.
type Report struct {
	Config  Config
	Load    float64 // 1-minute load average at the start
	CPUs    int
	Started time.Time
	Direct  Result
	Limited Result // gateway, token check and Redis limits
	Open    Result // gateway, token check, limits off
	Bare    Result // httputil.ReverseProxy alone, the control
}

// path is what every target serves: a jobs-shaped path under the /go/v1 route.
const path = "/api/v1/empregos"

// Run measures the three targets one after the other.
func Run(ctx context.Context, cfg Config) (Report, error) {
	load, err := loadAverage()
	if err != nil {
		return Report{}, err
	}
	if load > cfg.MaxLoad {
		return Report{}, fmt.Errorf("the 1-minute load average is %.2f, above %.2f: the numbers would measure the neighbours; retry when the machine is quieter", load, cfg.MaxLoad)
	}
	s, err := startStack(ctx, cfg.RedisURL)
	if err != nil {
		return Report{}, err
	}
	rep := Report{Config: cfg, Load: load, CPUs: runtime.NumCPU(), Started: time.Now()}
	targets := []struct {
		into *Result
		name string
		url  string
	}{
		{&rep.Direct, "direct to the upstream", s.upstream + path},
		{&rep.Limited, "gateway: auth + Redis limits", s.limited + "/go/v1" + path},
		{&rep.Open, "gateway: auth, limits off", s.open + "/go/v1" + path},
		{&rep.Bare, "control: bare httputil.ReverseProxy", s.bare + path},
	}
	for _, t := range targets {
		if *t.into, err = measure(t.name, t.url, s.token, cfg); err != nil {
			return rep, errors.Join(err, s.close())
		}
	}
	return rep, s.close()
}

// loadAverage reads the 1-minute load average of the machine.
func loadAverage() (float64, error) {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return 0, fmt.Errorf("read load average: %w", err)
	}
	fields := strings.Fields(string(b))
	if len(fields) == 0 {
		return 0, errors.New("read load average: /proc/loadavg is empty")
	}
	return strconv.ParseFloat(fields[0], 64)
}

package benchreport

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// modulePrefix is the start of every package path of the repository.
const modulePrefix = "github.com/municipal-apis/platform/"

// shortPackage is a package path relative to the repository.
func shortPackage(pkg string) string { return strings.TrimPrefix(pkg, modulePrefix) }

// unitsOf lists the units of benches in the order they first appear.
func unitsOf(benches []Bench) []string {
	var units []string
	for _, b := range benches {
		for _, m := range b.Metrics {
			if !slices.Contains(units, m.Unit) {
				units = append(units, m.Unit)
			}
		}
	}
	return units
}

// columnNames are the table headers of units.
func columnNames(units []string) []string {
	names := make([]string, len(units))
	for i, u := range units {
		if u == "ns/op" {
			u = "time/op"
		}
		names[i] = u
	}
	return names
}

func indexOf(units []string, unit string) int { return slices.Index(units, unit) }

// formatMetric writes a value in its unit: times and sizes in readable
// units, counts as integers, the rest with four significant digits.
func formatMetric(m Metric) string {
	switch m.Unit {
	case "ns/op":
		return time.Duration(m.Value).Round(time.Duration(roundTo(m.Value))).String()
	case "B/op":
		return formatBytes(m.Value)
	case "allocs/op":
		return strconv.FormatFloat(m.Value, 'f', 0, 64)
	default:
		return formatFloat(m.Value)
	}
}

// roundTo keeps three significant digits of a duration in nanoseconds.
func roundTo(ns float64) float64 {
	step := 1.0
	for ns >= 1000*step {
		step *= 10
	}
	return step
}

func formatBytes(v float64) string {
	switch {
	case v >= 1<<20:
		return fmt.Sprintf("%.1f MiB", v/(1<<20))
	case v >= 1<<10:
		return fmt.Sprintf("%.1f KiB", v/(1<<10))
	default:
		return fmt.Sprintf("%.0f B", v)
	}
}

func formatFloat(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func yesNo(met bool) string {
	if met {
		return "**met**"
	}
	return "**not met**"
}

// oneLine is the first line of err's message.
func oneLine(err error) string {
	line, _, _ := strings.Cut(err.Error(), "\n")
	return line
}

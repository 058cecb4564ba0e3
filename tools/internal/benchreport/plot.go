package benchreport

import (
	"fmt"
	"image/color"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/municipal-apis/platform/tools/internal/load"
)

// percentileSeries are the bars of each operation in the latency plot.
var percentileSeries = []struct {
	name  string
	value func(load.Stats) float64
	color color.RGBA
}{
	{"p50", func(s load.Stats) float64 { return s.P50 }, color.RGBA{R: 0x4c, G: 0x72, B: 0xb0, A: 0xff}},
	{"p90", func(s load.Stats) float64 { return s.P90 }, color.RGBA{R: 0xdd, G: 0x84, B: 0x52, A: 0xff}},
	{"p99", func(s load.Stats) float64 { return s.P99 }, color.RGBA{R: 0xc4, G: 0x4e, B: 0x52, A: 0xff}},
}

// WriteLatencyPlot draws the p50, p90 and p99 latency of every operation
// of the load run, and of all requests, as horizontal bars in a PNG at path.
func WriteLatencyPlot(path string, rep *load.Report) error {
	stats := append(append([]load.Stats{}, rep.Operations...), rep.Overall)
	names := make([]string, len(stats))
	for i, s := range stats {
		names[i] = s.Operation
	}
	p := plot.New()
	p.Title.Text = fmt.Sprintf("Latency through the gateway: %d req/s of the default mix for %gs", rep.Rate, rep.Duration)
	p.X.Label.Text = "milliseconds"
	p.X.Min = 0
	p.Legend.Top = true
	const barWidth = 8
	for i, series := range percentileSeries {
		values := make(plotter.Values, len(stats))
		for j, s := range stats {
			values[j] = series.value(s)
			p.X.Max = max(p.X.Max, 1.2*values[j]) // room on the right for the legend
		}
		bars, err := plotter.NewBarChart(values, vg.Points(barWidth))
		if err != nil {
			return fmt.Errorf("latency plot: %w", err)
		}
		bars.Horizontal = true
		bars.Color = series.color
		bars.LineStyle.Width = 0
		bars.Offset = vg.Points(float64(1-i) * barWidth)
		p.Add(bars)
		p.Legend.Add(series.name, bars)
	}
	p.Add(plotter.NewGrid())
	p.NominalY(names...)
	if err := p.Save(9*vg.Inch, vg.Length(len(stats))*0.45*vg.Inch+1.5*vg.Inch, path); err != nil {
		return fmt.Errorf("latency plot: save %s: %w", path, err)
	}
	return nil
}

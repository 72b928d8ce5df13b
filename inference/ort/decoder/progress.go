package decoder

import (
	"edgechat/onnx/optimize"
	"edgechat/reply"
)

// prepProgress tells a load's listener how far the preparation of a graph's optimized copy
// has gone. Each part of the work (a copy written, a check's session and runs) gets a share
// of the whole, in order, through span; at reports within it. What it reports never goes
// back, and is sent only when the whole percent or the step changes. A nil *prepProgress
// reports nothing.
type prepProgress struct {
	report   func(reply.Progress)
	lo, hi   float64
	last     reply.Progress
	reported bool
}

func newPrepProgress(report func(reply.Progress)) *prepProgress {
	if report == nil {
		return nil
	}
	return &prepProgress{report: report}
}

// span makes [lo, hi] of the whole the next part's share.
func (p *prepProgress) span(lo, hi float64) {
	if p != nil {
		p.lo, p.hi = lo, hi
	}
}

// onTo makes the share from what was reported so far up to hi the next part's.
func (p *prepProgress) onTo(hi float64) {
	if p != nil {
		p.span(min(p.last.Fraction, hi), hi)
	}
}

// at reports step at done (0 to 1) of the current part.
func (p *prepProgress) at(step string, done float64) {
	if p == nil {
		return
	}
	f := p.lo + (p.hi-p.lo)*min(max(done, 0), 1)
	next := reply.Progress{Step: step, Fraction: max(f, p.last.Fraction)}
	if p.reported && next.Step == p.last.Step && next.Percent() == p.last.Percent() {
		p.last.Fraction = next.Fraction
		return
	}
	p.last, p.reported = next, true
	p.report(next)
}

// done reports the preparation complete when it reported anything before (a cached copy
// goes straight to the load, which Open reports for every load).
func (p *prepProgress) done() {
	if p == nil || !p.reported {
		return
	}
	p.span(0, 1)
	p.at(p.last.Step, 1)
}

// copyProgress is what optimize.CachedProgress reports to: the current part.
func (p *prepProgress) copyProgress() optimize.Progress {
	if p == nil {
		return nil
	}
	return p.at
}

// calibProgress turns the int8 KV cache's calibration progress (0 to 1) into
// reply.StepCalibrating reports to report.
func calibProgress(report func(reply.Progress)) func(float64) {
	return stepProgress(reply.StepCalibrating, report)
}

// stepProgress turns a load step's progress (0 to 1) into reports of step to report, sent when
// the whole percent changes and never going back; nil when report is.
func stepProgress(step string, report func(reply.Progress)) func(float64) {
	if report == nil {
		return nil
	}
	var last reply.Progress
	sent := false
	return func(done float64) {
		next := reply.Progress{Step: step, Fraction: max(min(max(done, 0), 1), last.Fraction)}
		if sent && next.Percent() == last.Percent() {
			return
		}
		last, sent = next, true
		report(next)
	}
}

// twinProgress turns the share of the int8 prompt twin's weights written into
// reply.StepPrompts reports to report, as calibProgress does for the calibration.
func twinProgress(report func(reply.Progress)) func(float64) {
	return stepProgress(reply.StepPrompts, report)
}

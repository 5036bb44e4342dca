package reconcile

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// setConditions derives the four conditions from the attempt's outcome.
// meta.SetStatusCondition moves lastTransitionTime only when a status changes.
func (a *attempt) setConditions() {
	s := &a.status
	ready := metav1.ConditionFalse
	if s.Converged && s.Phase == PhaseRunning {
		ready = metav1.ConditionTrue
	}
	readyReason := s.Reason
	if readyReason == "" {
		readyReason = string(s.Phase)
	}
	set := func(t string, status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg})
	}
	set(ConditionReady, ready, readyReason, s.Message)
	if a.progressing || s.Phase == PhaseStarting || s.Phase == PhaseReplacing {
		set(ConditionProgressing, metav1.ConditionTrue, string(s.Phase), s.Message)
	} else {
		set(ConditionProgressing, metav1.ConditionFalse, "Settled", "")
	}
	if a.degraded {
		set(ConditionDegraded, metav1.ConditionTrue, s.Reason, s.Message)
	} else {
		set(ConditionDegraded, metav1.ConditionFalse, "AsExpected", "")
	}
	if a.res == nil || a.res.Valid() {
		set(ConditionSpecValid, metav1.ConditionTrue, "Valid", "")
	} else {
		msg := a.res.Errors[0].String()
		if n := len(a.res.Errors); n > 1 {
			msg += " (and more; run reconciler validate)"
		}
		set(ConditionSpecValid, metav1.ConditionFalse, "SpecInvalid", msg)
	}
}

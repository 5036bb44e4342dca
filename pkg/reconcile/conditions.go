package reconcile

import (
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// setConditions derives the four conditions from the attempt's outcome.
// meta.SetStatusCondition moves lastTransitionTime only when a status changes.
func (a *attempt) setConditions() {
	s := &a.status
	set := func(t string, status metav1.ConditionStatus, reason, msg string) {
		meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: t, Status: status, Reason: reason, Message: msg})
	}
	setReady(s)
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
	meta.SetStatusCondition(&s.Conditions, specValidCondition(a.res))
}

// setReady derives Ready from the phase and convergence: True only for a
// converged Running name. Its reason is the status's, or the phase's.
func setReady(s *DaemonStatus) {
	ready := metav1.ConditionFalse
	if s.Converged && s.Phase == PhaseRunning {
		ready = metav1.ConditionTrue
	}
	reason := s.Reason
	if reason == "" {
		reason = string(s.Phase)
	}
	meta.SetStatusCondition(&s.Conditions, metav1.Condition{Type: ConditionReady, Status: ready, Reason: reason, Message: s.Message})
}

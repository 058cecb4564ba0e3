package kube

import (
	"fmt"
	"net/netip"
	"slices"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
)

// Pod is a pod as NetworkPolicies see it: where it runs, its labels and its
// named container ports. A Pod with an IP and no Namespace is an address that
// is no pod (a node-local DNS cache, a Service IP bound on the node): only
// ipBlock peers match it.
type Pod struct {
	Namespace       string
	NamespaceLabels map[string]string
	Labels          map[string]string
	NamedPorts      map[string]int32
	IP              netip.Addr
}

// Address is an endpoint that is no pod, reached by its IP.
func Address(ip string) Pod {
	return Pod{IP: netip.MustParseAddr(ip)}
}

// PodOf describes the pods of template running in namespace ns.
func PodOf(ns string, template corev1.PodTemplateSpec) Pod {
	ports := map[string]int32{}
	for _, c := range template.Spec.Containers {
		for _, p := range c.Ports {
			if p.Name != "" {
				ports[p.Name] = p.ContainerPort
			}
		}
	}
	return Pod{
		Namespace:       ns,
		NamespaceLabels: map[string]string{"kubernetes.io/metadata.name": ns},
		Labels:          template.Labels,
		NamedPorts:      ports,
	}
}

// Allowed reports whether policies let from open a TCP connection to to on
// port, with the semantics of the NetworkPolicy API: a pod selected by no
// policy of a direction is open in that direction; a selected pod accepts
// only what some rule of a selecting policy allows. IP blocks never match a
// pod; an Address is matched by ipBlock peers only.
func Allowed(policies []*networkingv1.NetworkPolicy, from, to Pod, port int32) (bool, error) {
	out, err := direction(policies, from, networkingv1.PolicyTypeEgress, to, port)
	if err != nil || !out {
		return false, err
	}
	return direction(policies, to, networkingv1.PolicyTypeIngress, from, port)
}

// direction decides the side of subject (the sender for Egress, the receiver
// for Ingress) for traffic with other on port of the receiver.
func direction(policies []*networkingv1.NetworkPolicy, subject Pod, typ networkingv1.PolicyType, other Pod, port int32) (bool, error) {
	receiver := other
	if typ == networkingv1.PolicyTypeIngress {
		receiver = subject
	}
	selected := false
	for _, p := range policies {
		ok, err := selects(p, subject, typ)
		if err != nil {
			return false, err
		}
		if !ok {
			continue
		}
		selected = true
		for _, r := range rules(p, typ) {
			match, err := ruleMatches(p.Namespace, r, other, receiver, port)
			if err != nil || match {
				return match, err
			}
		}
	}
	return !selected, nil
}

// rule is the common part of an ingress and an egress rule.
type rule struct {
	peers []networkingv1.NetworkPolicyPeer
	ports []networkingv1.NetworkPolicyPort
}

func rules(p *networkingv1.NetworkPolicy, typ networkingv1.PolicyType) []rule {
	var out []rule
	if typ == networkingv1.PolicyTypeIngress {
		for _, r := range p.Spec.Ingress {
			out = append(out, rule{r.From, r.Ports})
		}
		return out
	}
	for _, r := range p.Spec.Egress {
		out = append(out, rule{r.To, r.Ports})
	}
	return out
}

// selects reports whether p applies to pod in the direction typ.
func selects(p *networkingv1.NetworkPolicy, pod Pod, typ networkingv1.PolicyType) (bool, error) {
	if p.Namespace != pod.Namespace || !slices.Contains(policyTypes(p), typ) {
		return false, nil
	}
	return matchLabels(&p.Spec.PodSelector, pod.Labels)
}

// policyTypes applies the API's default: Ingress always, Egress when the
// policy has egress rules.
func policyTypes(p *networkingv1.NetworkPolicy) []networkingv1.PolicyType {
	if len(p.Spec.PolicyTypes) > 0 {
		return p.Spec.PolicyTypes
	}
	types := []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
	if len(p.Spec.Egress) > 0 {
		types = append(types, networkingv1.PolicyTypeEgress)
	}
	return types
}

func ruleMatches(policyNS string, r rule, peer, receiver Pod, port int32) (bool, error) {
	ok, err := portMatches(r.ports, receiver, port)
	if err != nil || !ok {
		return false, err
	}
	if len(r.peers) == 0 {
		return true, nil
	}
	for _, p := range r.peers {
		ok, err := peerMatches(policyNS, p, peer)
		if err != nil || ok {
			return ok, err
		}
	}
	return false, nil
}

func peerMatches(policyNS string, p networkingv1.NetworkPolicyPeer, pod Pod) (bool, error) {
	if p.IPBlock != nil {
		return ipBlockMatches(p.IPBlock, pod)
	}
	if pod.Namespace == "" {
		return false, nil
	}
	if p.NamespaceSelector == nil {
		if pod.Namespace != policyNS {
			return false, nil
		}
	} else if ok, err := matchLabels(p.NamespaceSelector, pod.NamespaceLabels); err != nil || !ok {
		return false, err
	}
	if p.PodSelector == nil {
		return true, nil
	}
	return matchLabels(p.PodSelector, pod.Labels)
}

func portMatches(ports []networkingv1.NetworkPolicyPort, receiver Pod, port int32) (bool, error) {
	if len(ports) == 0 {
		return true, nil
	}
	for _, p := range ports {
		if p.Protocol != nil && *p.Protocol != corev1.ProtocolTCP {
			continue
		}
		if p.Port == nil {
			return true, nil
		}
		want := p.Port.IntVal
		if p.Port.Type == intstr.String {
			named, ok := receiver.NamedPorts[p.Port.StrVal]
			if !ok {
				continue
			}
			want = named
		}
		last := want
		if p.EndPort != nil {
			last = *p.EndPort
		}
		if port >= want && port <= last {
			return true, nil
		}
	}
	return false, nil
}

func matchLabels(sel *metav1.LabelSelector, set map[string]string) (bool, error) {
	s, err := metav1.LabelSelectorAsSelector(sel)
	if err != nil {
		return false, fmt.Errorf("label selector: %w", err)
	}
	return s.Matches(labels.Set(set)), nil
}

// ipBlockMatches reports whether an Address lies in the block and outside its
// exceptions; pods never match (how a CNI treats pod IPs in ipBlocks varies).
func ipBlockMatches(b *networkingv1.IPBlock, pod Pod) (bool, error) {
	if pod.Namespace != "" || !pod.IP.IsValid() {
		return false, nil
	}
	cidr, err := netip.ParsePrefix(b.CIDR)
	if err != nil {
		return false, fmt.Errorf("ipBlock %q: %w", b.CIDR, err)
	}
	if !cidr.Contains(pod.IP) {
		return false, nil
	}
	for _, e := range b.Except {
		ex, err := netip.ParsePrefix(e)
		if err != nil {
			return false, fmt.Errorf("ipBlock except %q: %w", e, err)
		}
		if ex.Contains(pod.IP) {
			return false, nil
		}
	}
	return true, nil
}

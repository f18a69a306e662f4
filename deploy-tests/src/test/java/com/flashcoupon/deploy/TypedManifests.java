package com.flashcoupon.deploy;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServiceAccount;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;
import io.fabric8.openshift.api.model.monitoring.v1.PrometheusRule;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;
import io.strimzi.api.kafka.model.topic.KafkaTopic;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Rendered manifests into the typed models of their APIs: fabric8's for Kubernetes and prometheus-operator, Strimzi's
 * for KafkaTopic. The models keep a field they do not know in {@code additionalProperties} instead of failing, so a
 * misspelt field ({@code replica:}, {@code readinesProbe:}) would parse quietly; {@link #unknownFields} walks the
 * parsed object and names every such field with its path. KEDA publishes no Java model: its objects stay maps and are
 * checked field by field by the test.
 */
final class TypedManifests {

    /** apiVersion and kind to the model class. */
    static final Map<String, Class<?>> MODELS = Map.ofEntries(
            Map.entry("v1/Namespace", Namespace.class),
            Map.entry("v1/ConfigMap", ConfigMap.class),
            Map.entry("v1/Service", Service.class),
            Map.entry("v1/ServiceAccount", ServiceAccount.class),
            Map.entry("apps/v1/Deployment", Deployment.class),
            Map.entry("apps/v1/StatefulSet", StatefulSet.class),
            Map.entry("policy/v1/PodDisruptionBudget", PodDisruptionBudget.class),
            Map.entry("networking.k8s.io/v1/NetworkPolicy", NetworkPolicy.class),
            Map.entry("networking.k8s.io/v1/Ingress", Ingress.class),
            Map.entry("autoscaling/v2/HorizontalPodAutoscaler", HorizontalPodAutoscaler.class),
            Map.entry("monitoring.coreos.com/v1/ServiceMonitor", ServiceMonitor.class),
            Map.entry("monitoring.coreos.com/v1/PrometheusRule", PrometheusRule.class),
            Map.entry("kafka.strimzi.io/v1/KafkaTopic", KafkaTopic.class),
            Map.entry("kafka.strimzi.io/v1/KafkaUser", io.strimzi.api.kafka.model.user.KafkaUser.class));

    /** Kinds without a Java model, checked as maps. */
    static final Set<String> UNTYPED = Set.of("keda.sh/v1alpha1/ScaledObject");

    private static final ObjectMapper JSON =
            new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, true);

    private TypedManifests() {}

    static String type(Map<String, Object> manifest) {
        return manifest.get("apiVersion") + "/" + manifest.get("kind");
    }

    /** The manifest as its model; fails for a kind nobody here knows. */
    static Object parse(Map<String, Object> manifest) {
        Class<?> model = MODELS.get(type(manifest));
        if (model == null) {
            throw new IllegalArgumentException("no model for " + type(manifest));
        }
        return JSON.convertValue(manifest, model);
    }

    /** Every field of the parsed object (at any depth) that its model did not know, as a path. */
    static List<String> unknownFields(Object parsed) {
        List<String> found = new ArrayList<>();
        walk(parsed, "", found, new IdentityHashMap<>());
        return found;
    }

    private static void walk(Object value, String path, List<String> found, Map<Object, Boolean> seen) {
        if (value == null || seen.put(value, Boolean.TRUE) != null) {
            return;
        }
        if (value instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", found, seen);
            }
            return;
        }
        if (value instanceof Map<?, ?> map) {
            map.forEach((key, item) -> walk(item, path + "." + key, found, seen));
            return;
        }
        String type = value.getClass().getName();
        if (!type.startsWith("io.fabric8.") && !type.startsWith("io.strimzi.")) {
            return; // strings, numbers, enums of the JDK
        }
        for (Method getter : value.getClass().getMethods()) {
            if (getter.getParameterCount() != 0
                    || Modifier.isStatic(getter.getModifiers())
                    || getter.getDeclaringClass() == Object.class
                    || !(getter.getName().startsWith("get") || getter.getName().startsWith("is"))) {
                continue;
            }
            Object child;
            try {
                child = getter.invoke(value);
            } catch (IllegalAccessException | InvocationTargetException | RuntimeException e) {
                continue; // a computed getter that does not apply here
            }
            if (getter.getName().equals("getAdditionalProperties")) {
                if (child instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    extra.keySet().forEach(key -> found.add(path + "." + key));
                }
                continue;
            }
            walk(child, path + "." + property(getter.getName()), found, seen);
        }
    }

    private static String property(String getter) {
        String name = getter.startsWith("is") ? getter.substring(2) : getter.substring(3);
        return name.isEmpty() ? name : Character.toLowerCase(name.charAt(0)) + name.substring(1);
    }
}

package com.flashcoupon.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.classes;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.context.annotation.Configuration;

/**
 * The api and the worker meet only through topics, keys and tables (docs/architecture.md, Modules); inside the api,
 * packages by feature that never depend on each other in a circle, and a {@code config} package of configuration only.
 */
@AnalyzeClasses(packages = "com.flashcoupon.api", importOptions = ImportOption.DoNotIncludeTests.class)
class ArchitectureTest {

    @ArchTest
    static final ArchRule apiNeverImportsTheWorker = noClasses()
            .that()
            .resideInAPackage("com.flashcoupon.api..")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("com.flashcoupon.worker..");

    @ArchTest
    static final ArchRule pacingIsPlainJava = noClasses()
            .that()
            .haveSimpleName("DrainPacer")
            .should()
            .dependOnClassesThat()
            .resideInAPackage("org.springframework..");

    @ArchTest
    static final ArchRule controllersDoNotTouchRedisOrJdbc = noClasses()
            .that()
            .haveSimpleNameEndingWith("Controller")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.springframework.data.redis..", "org.springframework.jdbc..");

    @ArchTest
    static final ArchRule packagesAreFreeOfCycles =
            slices().matching("com.flashcoupon.api.(*)..").should().beFreeOfCycles();

    @ArchTest
    static final ArchRule configHoldsOnlyConfiguration = classes()
            .that()
            .resideInAPackage("com.flashcoupon.api.config..")
            .and()
            .areTopLevelClasses()
            .should()
            .beAnnotatedWith(Configuration.class)
            .orShould()
            .beAnnotatedWith(ConfigurationProperties.class)
            .because("runtime classes belong to the feature that uses them, not to config");
}

package com.flashcoupon.api;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.junit.AnalyzeClasses;
import com.tngtech.archunit.junit.ArchTest;
import com.tngtech.archunit.lang.ArchRule;

/** The api and the worker meet only through topics, keys and tables (docs/architecture.md, Modules). */
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
}

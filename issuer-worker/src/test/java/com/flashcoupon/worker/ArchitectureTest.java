package com.flashcoupon.worker;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.Test;

class ArchitectureTest {

    private static final JavaClasses WORKER = new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("com.flashcoupon.worker");

    @Test
    void shouldNotDependOnApiWhenAnyWorkerClassIsImported() {
        noClasses()
                .that()
                .resideInAPackage("com.flashcoupon.worker..")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("com.flashcoupon.api..")
                .check(WORKER);
    }

    @Test
    void shouldKeepIssueRulesFreeOfSpringWhenTheyDecideWhoGetsAWallet() {
        noClasses()
                .that()
                .haveFullyQualifiedName("com.flashcoupon.worker.issue.IssuePlan")
                .or()
                .haveFullyQualifiedName("com.flashcoupon.worker.issue.RequestRules")
                .should()
                .dependOnClassesThat()
                .resideInAPackage("org.springframework..")
                .check(WORKER);
    }
}

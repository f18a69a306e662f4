-- Who an event is for, and its human check (issue 26; docs/operations.md, "Eligibility and human checks"). One row per
-- event that has either; an event without a row admits every member, as before.
--   list_required    the member must be on the event's list (coupon_eligible_member, generation list_generation)
--   claims           the claim rules as JSON ({"tier": ["GOLD", "VIP"]}): each named claim of the member's token must
--                    hold one of its values; NULL for none
--   mode             ENFORCE (refuse with 403 NOT_ELIGIBLE) or COUNT_ONLY (admit, and count who would be refused)
--   human_check      NULL, PROOF_OF_WORK or SITEVERIFY; difficulty_bits for PROOF_OF_WORK
--   list_generation  the upload the list is now (0: none yet); next_generation hands out upload numbers, so that two
--                    uploads at once never mix their rows; list_count the members of list_generation
CREATE TABLE coupon_gate (
    coupon_id       BIGINT        NOT NULL,
    list_required   BOOLEAN       NOT NULL DEFAULT FALSE,
    claims          VARCHAR(4000) NULL,
    mode            VARCHAR(16)   NOT NULL DEFAULT 'ENFORCE',
    human_check     VARCHAR(16)   NULL,
    difficulty_bits INT           NOT NULL DEFAULT 0,
    list_generation BIGINT        NOT NULL DEFAULT 0,
    next_generation BIGINT        NOT NULL DEFAULT 0,
    list_count      BIGINT        NOT NULL DEFAULT 0,
    PRIMARY KEY (coupon_id),
    CONSTRAINT coupon_gate_coupon FOREIGN KEY (coupon_id) REFERENCES coupon (id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

-- The members of each upload of an event's list; rows of a generation other than coupon_gate.list_generation are an
-- upload refused or replaced, removed after it.
CREATE TABLE coupon_eligible_member (
    coupon_id  BIGINT      NOT NULL,
    generation BIGINT      NOT NULL,
    member_id  VARCHAR(64) NOT NULL,
    PRIMARY KEY (coupon_id, generation, member_id)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin;

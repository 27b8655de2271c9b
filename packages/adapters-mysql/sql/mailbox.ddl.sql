-- The upstream AODB's mailbox tables (WIRE.md "Mailbox tables"), for tests and demos only.
-- In production both tables belong to the upstream's database (`aodbinterface`): msgx reads
-- cminmsgs, backfills CMINMSGS_DATE_PROCESSED and the CMINMSGS_SUBSYSTEM_* columns, appends
-- (HTTP ingress only) and inserts into coutmsgs. It never creates or alters them.
-- Names, types and nullability are the upstream's where WIRE.md states them. Our reading where it
-- does not: DATETIME without fraction for every date, BIGINT ids, MEDIUMTEXT NOT NULL for
-- COUTMSGS_CLOB_MSG, INT/BIGINT NULL for the numeric group columns (COUTMSGS_NO_MESSAGES,
-- _GROUP_ORDER, _GROUP_ID, _ACK_RESEND_TIMES), no column defaults, utf8mb4.
-- Generated from src/mailbox-ddl.ts (mailboxDdl() with the default names, which also takes a
-- renamed map); test/mailbox-ddl.unit.spec.ts keeps the two identical.

CREATE TABLE IF NOT EXISTS `cminmsgs` (
  `CMINMSGS_ID` BIGINT NOT NULL AUTO_INCREMENT,
  `CMINMSGS_CLOB_MSG` MEDIUMTEXT NOT NULL,
  `CMINMSGS_DATE_RECEIVED` DATETIME NULL,
  `CMINMSGS_DATE_PROCESSED` DATETIME NULL,
  `CMINMSGS_SUBSYSTEM_NAME` VARCHAR(4) NULL,
  `CMINMSGS_SUBSYSTEM_SEQUENCE` MEDIUMINT NULL,
  `CMINMSGS_SUBSYSTEM_DATE_SENT` DATETIME NULL,
  `CMINMSGS_SUBSYSTEM_TYPE` VARCHAR(4) NULL,
  `CMINMSGS_SUBSYSTEM_SUBTYPE` VARCHAR(4) NULL,
  `CMINMSGS_STATUS` VARCHAR(20) NULL,
  PRIMARY KEY (`CMINMSGS_ID`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

CREATE TABLE IF NOT EXISTS `coutmsgs` (
  `COUTMSGS_ID` BIGINT NOT NULL AUTO_INCREMENT,
  `COUTMSGS_CLOB_MSG` MEDIUMTEXT NOT NULL,
  `COUTMSGS_DATE_INSERTED` DATETIME NOT NULL,
  `COUTMSGS_DATE_SENT` DATETIME NULL,
  `ROUTINGID` VARCHAR(23) NOT NULL,
  `COUTMSGS_TRUEFALS_GROUP` TINYINT NOT NULL,
  `COUTMSGS_NO_MESSAGES` INT NULL,
  `COUTMSGS_GROUP_ORDER` INT NULL,
  `COUTMSGS_GROUP_ID` BIGINT NULL,
  `COUTMSGS_FINAL_GROUP_IND` TINYINT NOT NULL,
  `COUTMSGS_ACK_REQD` TINYINT NOT NULL,
  `COUTMSGS_ACK_RESEND_TIMES` INT NULL,
  `COUTMSGS_ACK_DATE_RECV` DATETIME NULL,
  `COUTMSGS_ENCRYPT` TINYINT NOT NULL,
  `COUTMSGS_ERROR` TINYINT NOT NULL,
  PRIMARY KEY (`COUTMSGS_ID`)
) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_unicode_ci;

package org.apache.flink.table.types.logical;
public enum TimestampKind { REGULAR, ROWTIME, PROCTIME }

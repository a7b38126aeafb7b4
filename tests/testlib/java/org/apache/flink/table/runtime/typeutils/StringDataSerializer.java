package org.apache.flink.table.runtime.typeutils;
public final class StringDataSerializer extends org.apache.flink.api.common.typeutils.base.TypeSerializerSingleton<Object> { private static final long serialVersionUID = 1L; public static final StringDataSerializer INSTANCE = new StringDataSerializer(); }
